import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type pg from 'pg';
import { NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';
import type { HoldRecord, SettlementRecord } from '../../src/store/ledger-records.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { countStatements, createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// PostgresLedger.settle on a real Postgres: exact when a batch is sent again (its COMMIT
// went through but the answer was lost), a fixed number of statements whatever the batch's
// size, and batches of several instances touching the same rows in any order never deadlock.

const skip = postgresUnavailable() ?? false;

after(async () => {
  if (skip === false) await stopPostgres();
});

/** A migrated database with `accounts` accounts of 1 USD, each with key `hash_<n>` (account `acct_<n>`). */
// Batches queue for the pool's few connections: on a loaded machine a wait can pass the
// 2 s default, which is a connection timeout, not what these tests check.
const QUEUE_WAIT_MS = 60_000;

async function database(accounts = 1, max = 2): Promise<{ pool: pg.Pool; statements: () => number }> {
  const pool = createPostgresPool({ url: await createTestDatabase(), max, connectionTimeoutMs: QUEUE_WAIT_MS });
  const statements = countStatements(pool);
  await migratePostgres(pool);
  for (let n = 1; n <= accounts; n++) {
    await pool.query(
      `INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ($1, 'a', 'user', '1000000000', $2)`,
      [`acct_${n}`, NOW],
    );
    await pool.query(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, $2, 'k', 'sk-sy-v1-x...y', $3)`, [
      `hash_${n}`,
      `acct_${n}`,
      NOW,
    ]);
  }
  return { pool, statements: () => statements.count };
}

const hold = (id: string, accountId = 'acct_1', keyHash = 'hash_1'): HoldRecord => ({
  id,
  accountId,
  keyHash,
  amountNanos: 500n,
  createdAt: NOW,
  expiresAt: NOW,
});
const record = (id: string, cost: bigint, n = 1): SettlementRecord => ({
  ...settlement(id, cost, true, `hash_${n}`),
  accountId: `acct_${n}`,
});

/** Everything a settlement moves, as text (BIGINT columns come back as decimal strings). */
async function state(pool: pg.Pool): Promise<unknown> {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    balances: await q('SELECT id, balance_nanos FROM accounts ORDER BY id'),
    keys: await q('SELECT hash, usage_nanos, last_used FROM api_keys ORDER BY hash'),
    ledger: await q('SELECT account_id, kind, amount_nanos, generation_id FROM ledger ORDER BY generation_id'),
    generations: await q('SELECT id, status, error_code, cost_nanos FROM generations ORDER BY id'),
    holds: await q('SELECT id FROM reservations ORDER BY id'),
    daily: await q('SELECT * FROM usage_daily ORDER BY day, account_id, key_hash, model, provider, app_title'),
    global: await q('SELECT * FROM usage_daily_global ORDER BY day, model, provider, app_title'),
    perKey: await q('SELECT * FROM usage_daily_keys ORDER BY day, account_id, key_hash'),
  };
}

test(
  'the same batch settled twice moves the balance, key usage, ledger and rollups once; its hold rows are kept',
  { skip, timeout: 60_000 },
  async () => {
    const { pool } = await database();
    try {
      const ledger = new PostgresLedger(pool);
      await ledger.settle([hold('gen-a')], []);
      const batch = [record('gen-a', 100n), record('gen-b', 40n), record('gen-free', 0n)];
      const holds = [hold('gen-c'), hold('gen-d')];
      await ledger.settle(holds, batch);
      const once = await state(pool);
      await ledger.settle(holds, batch); // the COMMIT went through, its answer was lost: sent again
      assert.deepEqual(await state(pool), once);
      const s = once as {
        balances: Array<{ balance_nanos: string }>;
        keys: Array<{ usage_nanos: string }>;
        ledger: unknown[];
        holds: unknown[];
        daily: Array<{ requests: string; cost_nanos: string }>;
      };
      assert.equal(s.balances[0]!.balance_nanos, String(1_000_000_000n - 140n));
      assert.equal(s.keys[0]!.usage_nanos, '140');
      assert.equal(s.ledger.length, 2, 'one charge per priced record');
      assert.deepEqual(s.holds, [{ id: 'gen-c' }, { id: 'gen-d' }], 'the settled hold removed, the new ones written once');
      assert.deepEqual([s.daily[0]!.requests, s.daily[0]!.cost_nanos], ['3', '140']);
    } finally {
      await pool.end();
    }
  },
);

test(
  "an 'interrupted' record left by the stale-hold sweep is replaced by the late settlement, which is charged once",
  { skip, timeout: 60_000 },
  async () => {
    const { pool } = await database();
    try {
      await pool.query(`INSERT INTO record_names (name) VALUES ('acct_1'), ('hash_1'), ('interrupted')`);
      await pool.query(
        `INSERT INTO generation_records (id, created_ms, account_ref, key_ref, streamed, cancelled, cache_hit, is_error, error_code_ref,
        tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos)
      SELECT 'gen-late', $1, (SELECT id FROM record_names WHERE name = 'acct_1'), (SELECT id FROM record_names WHERE name = 'hash_1'),
        0, 1, 0, 1, (SELECT id FROM record_names WHERE name = 'interrupted'), 0, 0, 0, 0, 0, 0`,
        [Date.parse(NOW)],
      );
      const ledger = new PostgresLedger(pool);
      await ledger.settle([], [record('gen-late', 70n)]);
      await ledger.settle([], [record('gen-late', 70n)]);
      const s = (await state(pool)) as { balances: Array<{ balance_nanos: string }>; generations: unknown[]; ledger: unknown[] };
      assert.deepEqual(s.generations, [{ id: 'gen-late', status: 'success', error_code: null, cost_nanos: '70' }]);
      assert.deepEqual(s.ledger, [{ account_id: 'acct_1', kind: 'charge', amount_nanos: '-70', generation_id: 'gen-late' }]);
      assert.equal(s.balances[0]!.balance_nanos, String(1_000_000_000n - 70n));
    } finally {
      await pool.end();
    }
  },
);

test(
  'a batch is a fixed number of statements whatever its size (1 or 64 records), in one transaction',
  { skip, timeout: 60_000 },
  async () => {
    const { pool, statements } = await database(8);
    try {
      const ledger = new PostgresLedger(pool);
      // The pool's connection, opened and counted apart; and the accounts' and keys' names, which
      // a batch that first sees them adds in two statements before its transaction.
      await ledger.settle(
        [],
        Array.from({ length: 8 }, (_, i) => record(`warm-${i}`, 1n, i + 1)),
      );
      const counts: number[] = [];
      for (const size of [1, 64]) {
        const before = statements();
        await ledger.settle(
          [hold(`h-${size}`)],
          Array.from({ length: size }, (_, i) => record(`gen-${size}-${i}`, BigInt(i + 1), (i % 8) + 1)),
        );
        counts.push(statements() - before);
      }
      // BEGIN, records with holds and charges, three rollup tables, balances, key usage, COMMIT.
      assert.deepEqual(counts, [8, 8]);
      const charged = (await pool.query(`SELECT count(*) AS n, sum(amount_nanos) AS s FROM ledger WHERE generation_id LIKE 'gen-64-%'`))
        .rows[0];
      assert.deepEqual([charged.n, charged.s], ['64', String(-((64n * 65n) / 2n))]);
    } finally {
      await pool.end();
    }
  },
);

test(
  'batches of two instances touching the same accounts and keys in opposite orders never deadlock',
  { skip, timeout: 120_000 },
  async () => {
    const { pool } = await database(6, 4);
    const other = createPostgresPool({
      url: (pool as unknown as { options: { connectionString: string } }).options.connectionString,
      max: 4,
      connectionTimeoutMs: QUEUE_WAIT_MS,
    });
    try {
      const random = seededRandom(13);
      const a = new PostgresLedger(pool);
      const b = new PostgresLedger(other);
      let next = 0;
      // The two instances' records on different days: no rollup row in common, so the balances
      // and keys are the first rows both lock (their order is what is tested, not the rollups').
      const batchOf = (order: number[], createdAt: string) =>
        order.map((n) => ({ ...record(`gen-${next++}`, BigInt(1 + Math.floor(random() * 50)), n), model: `m/${n % 3}`, createdAt }));
      let total = 0n;
      const rounds: Array<Promise<void>> = [];
      for (let round = 0; round < 40; round++) {
        const forward = batchOf([1, 2, 3, 4, 5, 6], NOW);
        const backward = batchOf([6, 5, 4, 3, 2, 1], '2026-01-02T00:00:00.000Z');
        for (const r of [...forward, ...backward]) total += r.costNanos;
        rounds.push(a.settle([], forward), b.settle([], backward));
      }
      await Promise.all(rounds);
      const left = (await pool.query('SELECT sum(balance_nanos) AS s FROM accounts')).rows[0].s;
      assert.equal(BigInt(left), 6n * 1_000_000_000n - total);
      const usage = (await pool.query('SELECT sum(cost_nanos) AS s, sum(requests) AS n FROM usage_daily_global')).rows[0];
      assert.deepEqual([BigInt(usage.s), usage.n], [total, String(40 * 12)]);
    } finally {
      await other.end();
      await pool.end();
    }
  },
);
