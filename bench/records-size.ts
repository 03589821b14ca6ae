import { createPostgresPool } from '../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../test/support/postgres-server.ts';
import { postgresSizePerRecord, sqliteSizePerRecord, type Layout, type SizePerRecord } from './lib/record-size.ts';

// Bytes per generation record, before (the layout of migrations 1-10) and after (migration
// 11's compact records), on SQLite and on Postgres (the embedded server of the tests).
//   node bench/records-size.ts [--records 20000] [--no-postgres]
// Prints one line per engine and layout, then a JSON summary.

const args = process.argv.slice(2);
const count = Number(args[args.indexOf('--records') + 1] ?? 0) || 20_000;
const withPostgres = !args.includes('--no-postgres') && postgresUnavailable() === null;

const results: Record<string, Record<Layout, SizePerRecord>> = {};
const line = (engine: string, layout: Layout, s: SizePerRecord) =>
  process.stdout.write(
    `${engine.padEnd(8)} ${layout.padEnd(7)} record (table + indexes): ${s.record.toFixed(0).padStart(5)} B   whole database per request: ${s.database.toFixed(0).padStart(5)} B\n`,
  );

process.stdout.write(`${count.toLocaleString('en')} records measured per engine and layout\n`);
results.sqlite = { legacy: sqliteSizePerRecord('legacy', count), compact: sqliteSizePerRecord('compact', count) };
line('sqlite', 'legacy', results.sqlite.legacy);
line('sqlite', 'compact', results.sqlite.compact);
if (withPostgres) {
  try {
    const out = {} as Record<Layout, SizePerRecord>;
    for (const layout of ['legacy', 'compact'] as const) {
      const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
      try {
        out[layout] = await postgresSizePerRecord(pool, layout, count);
      } finally {
        await pool.end();
      }
      line('postgres', layout, out[layout]);
    }
    results.postgres = out;
  } finally {
    await stopPostgres();
  }
}
process.stdout.write(`${JSON.stringify({ records: count, results })}\n`);
