import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from '../../src/store/sqlite/open-database.ts';
import type pg from 'pg';
import { ledgered, NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import type { HoldRecord, SettlementRecord } from '../../src/store/ledger-records.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/postgres-migrations.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { SharedStateUnavailable } from '../../src/shared/shared-state-unavailable.ts';
import { freePort } from '../support/free-port.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

const skip = postgresUnavailable() ?? false;
const pools: pg.Pool[] = [];
after(async () => {
  for (const p of pools) await p.end();
  await stopPostgres();
});

async function pool(url?: string): Promise<pg.Pool> {
  const p = createPostgresPool({ url: url ?? (await createTestDatabase()), max: 4 });
  pools.push(p);
  return p;
}

test('the Postgres migrations mirror the SQLite ones, apply from scratch, and a second run applies nothing', { skip }, async () => {
  assert.deepEqual(
    POSTGRES_MIGRATIONS.map((m) => [m.version, m.name]),
    MIGRATIONS.map((m) => [m.version, m.name]),
  );
  const db = await pool();
  assert.deepEqual(
    await migratePostgres(db),
    MIGRATIONS.map((m) => m.version),
  );
  assert.deepEqual(await migratePostgres(db), []);
  const tables = (await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.tablename);
  // The same tables as SQLite's migrations make.
  const sqlite = new DatabaseSync(':memory:');
  migrate(sqlite);
  const sqliteTables = (
    sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
  sqlite.close();
  assert.deepEqual(tables, sqliteTables);
});

test('instances starting at once: each migration is applied exactly once', { skip }, async () => {
  const url = await createTestDatabase();
  const runners = await Promise.all([pool(url), pool(url), pool(url)]);
  const applied = await Promise.all(runners.map((p) => migratePostgres(p)));
  assert.deepEqual(
    applied.flat().sort((a, b) => a - b),
    MIGRATIONS.map((m) => m.version),
  );
  const rows = (await runners[0].query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
  assert.deepEqual(
    rows,
    MIGRATIONS.map((m) => m.version),
  );
});

/** Copies the fixture database's accounts, keys and ledger into Postgres, so both start equal. */
async function copyInto(db: pg.Pool, sqlite: DatabaseSync): Promise<void> {
  for (const table of ['accounts', 'api_keys', 'ledger']) {
    for (const row of sqlite.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()) {
      const cols = Object.keys(row).filter((c) => !(table === 'ledger' && c === 'id'));
      await db.query(
        `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
        cols.map((c) => (row as Record<string, unknown>)[c]),
      );
    }
  }
}

const TABLES: Array<[string, string]> = [
  ['accounts', 'id'],
  ['api_keys', 'hash'],
  ['ledger', 'id'],
  ['generations', 'id'],
  ['reservations', 'id'],
  ['usage_daily', 'day, account_id, key_hash, model, provider, app_title'],
  ['usage_daily_global', 'day, model, provider, app_title'],
  ['usage_daily_keys', 'day, account_id, key_hash'],
];
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
const normalize = (rows: readonly object[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, text(v)])));

test('PostgresLedger.settle writes the same rows as LedgerStore.settle on the same batches', { skip }, async () => {
  const base = ledgered(1_000_000_000n, 500_000_000n);
  base.accounts.createKey({
    hash: 'hash_2',
    accountId: 'acct_1',
    name: 'k2',
    label: 'sk-sy-v1-z...w',
    limitNanos: null,
    isManagement: false,
    expiresAt: null,
    now: NOW,
  });
  const db = await pool();
  await migratePostgres(db);
  await copyInto(db, base.db);
  const ledger = new PostgresLedger(db);

  const hold = (id: string, amount: bigint): HoldRecord => ({
    id,
    accountId: 'acct_1',
    keyHash: 'hash_1',
    amountNanos: amount,
    createdAt: NOW,
    expiresAt: '2026-01-01T00:10:00.000Z',
  });
  const later = (r: SettlementRecord, createdAt: string, extra: Partial<SettlementRecord> = {}): SettlementRecord => ({
    ...r,
    createdAt,
    ...extra,
  });
  const batches: Array<[HoldRecord[], SettlementRecord[]]> = [
    [[hold('g1', 7_000n), hold('g2', 9_000n), hold('g5', 1_000n)], []],
    [
      [hold('g3', 3_000n)],
      [
        settlement('g1', 6_123n),
        later(settlement('g2', 0n), '2026-01-01T00:00:05.000Z', { status: 'error', errorCode: 'upstream_error', latencyMs: null }),
      ],
    ],
    [
      [],
      [
        later(settlement('g3', 2_500n, true, 'hash_2'), '2026-01-02T10:00:00.000Z', {
          xTitle: 'My App',
          costBreakdown: { prompt: '0.000001' },
        }),
        later(settlement('g4', 1_000_000n, false), '2026-01-02T11:00:00.000Z', {
          model: 'b/other',
          provider: 'q',
          streamed: true,
          cancelled: true,
        }),
        later(settlement('g6', 42n, false, 'hash_2'), '2026-01-01T23:59:59.999Z'),
      ],
    ],
  ];
  for (const [holds, batch] of batches) {
    base.ledger.settle(holds, batch);
    await ledger.settle(holds, batch);
  }
  for (const [table, order] of TABLES) {
    const expected = normalize(base.db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all());
    const actual = normalize((await db.query(`SELECT * FROM ${table} ORDER BY ${order}`)).rows);
    assert.ok(expected.length > 0 || table === 'reservations', `${table} has rows to compare`);
    assert.deepEqual(actual, expected, table);
  }
});

test("PostgresLedger.spendState reads a key's state and which settling charges the ledger has", { skip }, async () => {
  const base = ledgered(1_000n, null);
  const db = await pool();
  await migratePostgres(db);
  await copyInto(db, base.db);
  const ledger = new PostgresLedger(db);
  await ledger.settle([], [settlement('g1', 100n, false)]);
  const state = await ledger.spendState('hash_1', ['g1', 'g2'], () => assert.fail('no reset: no period'));
  assert.deepEqual(state, {
    balanceNanos: 900n,
    accountActive: true,
    usageNanos: 100n,
    limitNanos: null,
    limitReset: null,
    limitUsageNanos: 100n,
    keyActive: true,
    expiresAt: null,
    committedIds: ['g1'],
    budgetNanos: null,
    budgetReset: null,
    budgetUsageNanos: 0n,
    memberId: null,
    memberBudgetNanos: null,
    memberBudgetReset: null,
    memberBudgetUsageNanos: 0n,
  });
  assert.equal(await ledger.spendState('nope', [], () => []), undefined);
});

test('with Postgres unreachable, settle and spendState reject with SharedStateUnavailable', { skip }, async () => {
  const nowhere = await pool(`postgres://postgres:pw@127.0.0.1:${await freePort()}/none`);
  const ledger = new PostgresLedger(nowhere);
  for (const call of [() => ledger.settle([], [settlement('g1', 1n)]), () => ledger.spendState('hash_1', [], () => [])]) {
    const err = await call().then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof SharedStateUnavailable, `rejected with ${String(err)}`);
    assert.equal(err.store, 'postgres');
    assert.doesNotMatch(err.message, /pw@/);
  }
});
