// node bench/postgres-settle-batch.ts [--src DIR] [--batches N]
//
// PostgresLedger.settle on the test harness's Postgres (test/support/postgres-server.ts: a
// loopback server, fsync off): statements sent per batch (counted on the pool's clients)
// and time per batch, for batches of 1 and of 64 records over 50 accounts × 4 keys and 4
// models. --src points at another checkout's src/ (e.g. the commit before a change), so the
// same measurement runs on the code before and after it.

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { countStatements, createTestDatabase, stopPostgres } from '../test/support/postgres-server.ts';
import { benchKeys, settlementRecords } from './lib/bench-settlements.ts';

const { values: flags } = parseArgs({ options: { src: { type: 'string' }, batches: { type: 'string' } } });
const SRC = resolve(flags.src ?? join(import.meta.dirname, '..', 'src'));
const BATCHES = Number(flags.batches ?? 200);

const { createPostgresPool } = await import(join(SRC, 'store/postgres/postgres-pool.ts'));
const { migratePostgres } = await import(join(SRC, 'store/postgres/migrate-postgres.ts'));
const { PostgresLedger } = await import(join(SRC, 'store/postgres/postgres-ledger.ts'));

const pool: pg.Pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
// Every query of a settle goes through a pool client: counted there.
const statements = countStatements(pool);
await migratePostgres(pool);
const now = new Date().toISOString();
const keys = benchKeys();
for (const account of new Set(keys.map((k) => k.account))) {
  await pool.query(
    `INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES ($1, $1, 'user', 'free', $2, $3)`,
    [account, String(10n ** 15n), now],
  );
}
for (const k of keys)
  await pool.query(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, $2, 'k', 'l', $3)`, [
    k.hash,
    k.account,
    now,
  ]);
const record = settlementRecords(keys, () => now);
const ledger = new PostgresLedger(pool);
for (const size of [1, 64]) {
  await ledger.settle([], Array.from({ length: size }, record)); // warm-up: the connection, the plans
  statements.reset();
  const t0 = performance.now();
  for (let b = 0; b < BATCHES; b++) await ledger.settle([], Array.from({ length: size }, record));
  const ms = (performance.now() - t0) / BATCHES;
  process.stdout.write(
    `batch of ${size}: ${(statements.count / BATCHES).toFixed(1)} statements, ${ms.toFixed(2)} ms per batch (${Math.round((size * 1000) / ms).toLocaleString('en')} records/s)\n`,
  );
}
process.stdout.write(`(src: ${SRC})\n`);
await pool.end();
await stopPostgres();
