import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { configureConnection, migrate } from '../../src/store/sqlite/open-database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { LedgerStore } from '../../src/store/sqlite/ledger-store.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/postgres-migrations.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { sampleRecords, seedSampleAccounts } from '../../test/support/sample-records.ts';

// Bytes a generation record takes, measured as the database grows: `legacy` is the layout of
// migrations 1-10 (the `generations` table of text columns and its four indexes, written
// as the settlement wrote it until migration 11), `compact` the current one (generation-row.ts),
// written by the real settlement (LedgerStore / PostgresLedger). Records go in batches of 50,
// as the settlement queue groups them; the first `warm` records fill the first pages of each
// b-tree and the dictionary, then `count` more are measured.

export type Layout = 'legacy' | 'compact';

export interface SizePerRecord {
  /** The record's table and indexes (and `record_names`), bytes per record. */
  record: number;
  /** The whole database (the ledger's charge row and the rollups included), bytes per record. */
  database: number;
}

const BATCH = 50;
const LEGACY_COLUMNS = [
  'id',
  'account_id',
  'key_hash',
  'model',
  'provider',
  'upstream_model',
  'upstream_id',
  'endpoint_dialect',
  'streamed',
  'cancelled',
  'status',
  'error_code',
  'finish_reason',
  'native_finish_reason',
  'tokens_prompt',
  'tokens_completion',
  'tokens_cache_read',
  'tokens_cache_write',
  'tokens_reasoning',
  'cost_nanos',
  'cost_breakdown',
  'latency_ms',
  'first_token_ms',
  'attempts',
  'http_referer',
  'x_title',
  'end_user',
  'created_at',
  'cache_hit',
];

function legacyRow(r: SettlementRecord): Array<string | number | bigint | null> {
  return [
    r.id,
    r.accountId,
    r.keyHash,
    r.model,
    r.provider,
    r.upstreamModel,
    r.upstreamId,
    r.dialect,
    r.streamed ? 1 : 0,
    r.cancelled ? 1 : 0,
    r.status,
    r.errorCode,
    r.finishReason,
    r.nativeFinishReason,
    r.tokensPrompt,
    r.tokensCompletion,
    r.tokensCacheRead,
    r.tokensCacheWrite,
    r.tokensReasoning,
    r.costNanos,
    r.costBreakdown === null ? null : JSON.stringify(r.costBreakdown),
    r.latencyMs,
    r.firstTokenMs,
    JSON.stringify(r.attempts),
    r.httpReferer,
    r.xTitle,
    r.endUser,
    r.createdAt,
    r.cacheHit === true ? 1 : 0,
  ];
}

function* batches(records: Iterable<SettlementRecord>): Generator<SettlementRecord[]> {
  let b: SettlementRecord[] = [];
  for (const r of records) {
    b.push(r);
    if (b.length === BATCH) {
      yield b;
      b = [];
    }
  }
  if (b.length > 0) yield b;
}

const RECORD_TABLES = { legacy: ['generations'], compact: ['generation_records', 'record_names'] };

/** SQLite: a fresh file database per layout. */
export function sqliteSizePerRecord(layout: Layout, count: number, warm = 2000): SizePerRecord {
  const dir = mkdtempSync(join(tmpdir(), 'sy-record-size-'));
  const db = new DatabaseSync(join(dir, 'db.sqlite'));
  try {
    configureConnection(db);
    migrate(db, layout === 'legacy' ? MIGRATIONS.filter((m) => m.version <= 10) : MIGRATIONS);
    seedSampleAccounts(db);
    const write = sqliteWriter(db, layout);
    const records = sampleRecords(warm + count);
    for (const b of batches(take(records, warm))) write(b);
    const before = sqliteSizes(db, RECORD_TABLES[layout]);
    for (const b of batches(records)) write(b);
    const after = sqliteSizes(db, RECORD_TABLES[layout]);
    return { record: (after.record - before.record) / count, database: (after.database - before.database) / count };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function* take<T>(it: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const r = it.next();
    if (r.done === true) return;
    yield r.value;
  }
}

function sqliteWriter(db: DatabaseSync, layout: Layout): (b: SettlementRecord[]) => void {
  if (layout === 'compact') {
    const ledger = new LedgerStore(db);
    return (b) => ledger.settle([], b);
  }
  const insert = db.prepare(`INSERT INTO generations (${LEGACY_COLUMNS.join(', ')}) VALUES (${LEGACY_COLUMNS.map(() => '?').join(', ')})`);
  const charge = db.prepare(
    `INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, created_at) VALUES (?, ?, 'charge', ?, ?, ?)`,
  );
  return (b) => {
    db.exec('BEGIN');
    for (const r of b) {
      insert.run(...legacyRow(r));
      if (r.costNanos !== 0n) charge.run(r.accountId, r.keyHash, -r.costNanos, r.id, r.createdAt);
    }
    db.exec('COMMIT');
  };
}

/** Pages in use (dbstat) of the record's tables and their indexes, and of the whole file. */
function sqliteSizes(db: DatabaseSync, tables: readonly string[]): { record: number; database: number } {
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const names = (
    db
      .prepare(`SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => '?').join(', ')}) AND type IN ('table', 'index')`)
      .all(...tables) as Array<{ name: string }>
  ).map((r) => r.name);
  const record = Number(
    (
      db.prepare(`SELECT coalesce(sum(pgsize), 0) AS s FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).get(...names) as {
        s: number;
      }
    ).s,
  );
  const database = Number(
    (db.prepare('SELECT page_count * page_size AS s FROM pragma_page_count(), pragma_page_size()').get() as { s: number }).s,
  );
  return { record, database };
}

/** Postgres: `pool` on an empty database. */
export async function postgresSizePerRecord(pool: pg.Pool, layout: Layout, count: number, warm = 2000): Promise<SizePerRecord> {
  await migratePostgres(pool, layout === 'legacy' ? POSTGRES_MIGRATIONS.filter((m) => m.version <= 10) : POSTGRES_MIGRATIONS);
  const accounts = new Map<string, string>();
  const records = sampleRecords(warm + count);
  const all = [...records];
  for (const r of all) accounts.set(r.keyHash, r.accountId);
  for (const a of new Set(accounts.values())) {
    await pool.query(
      `INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ($1, $1, 'user', '1000000000000000', '2026-01-01T00:00:00.000Z')`,
      [a],
    );
  }
  for (const [k, a] of accounts)
    await pool.query(
      `INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, $2, 'k', 'sk-sy-v1-x', '2026-01-01T00:00:00.000Z')`,
      [k, a],
    );
  const write = postgresWriter(pool, layout);
  for (const b of batches(all.slice(0, warm))) await write(b);
  const before = await postgresSizes(pool, RECORD_TABLES[layout]);
  for (const b of batches(all.slice(warm))) await write(b);
  const after = await postgresSizes(pool, RECORD_TABLES[layout]);
  return { record: (after.record - before.record) / count, database: (after.database - before.database) / count };
}

function postgresWriter(pool: pg.Pool, layout: Layout): (b: SettlementRecord[]) => Promise<void> {
  if (layout === 'compact') {
    const ledger = new PostgresLedger(pool);
    return (b) => ledger.settle([], b);
  }
  const values = (b: SettlementRecord[]) => b.flatMap((r) => legacyRow(r).map((v) => (typeof v === 'bigint' ? v.toString() : v)));
  const rows = (n: number, width: number) =>
    Array.from({ length: n }, (_, i) => `(${Array.from({ length: width }, (_, c) => `$${i * width + c + 1}`).join(', ')})`).join(', ');
  return async (b) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO generations (${LEGACY_COLUMNS.join(', ')}) VALUES ${rows(b.length, LEGACY_COLUMNS.length)}`,
        values(b),
      );
      const charged = b.filter((r) => r.costNanos !== 0n);
      if (charged.length > 0) {
        await client.query(
          `INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, created_at) VALUES ${rows(charged.length, 5).replaceAll(/\(\$(\d+), \$(\d+), \$(\d+)/g, "($$$1, $$$2, 'charge', $$$3")}`,
          charged.flatMap((r) => [r.accountId, r.keyHash, (-r.costNanos).toString(), r.id, r.createdAt]),
        );
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
}

async function postgresSizes(pool: pg.Pool, tables: readonly string[]): Promise<{ record: number; database: number }> {
  let record = 0;
  for (const t of tables)
    record += Number((await pool.query<{ s: string }>('SELECT pg_total_relation_size($1::regclass) AS s', [t])).rows[0]?.s);
  const database = Number((await pool.query<{ s: string }>('SELECT pg_database_size(current_database()) AS s')).rows[0]?.s);
  return { record, database };
}
