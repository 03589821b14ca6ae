import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { RedisCreditHolds } from '../../src/billing/redis-credit-holds.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import type { KeyLimitReset } from '../../src/store/account-records.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// A key's limit_reset in a fleet, on both real engines: the shared credit holds in Redis
// cap the usage of the key's current UTC period (day, week from Monday), loaded from
// Postgres (usage_daily_keys over the period's days) and read afresh when the period ends,
// by the holds' clock, on the same snapshot (nothing forgotten in between).

const skip = redisUnavailable() ?? postgresUnavailable() ?? false;
const M = 1_000_000n; // $0.001
let redis: RedisServer;
const pools: pg.Pool[] = [];
const connections: RedisConnection[] = [];
let prefixes = 0;

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const c of connections) await c.close();
  for (const p of pools) await p.end();
  await redis?.stop();
  await stopPostgres();
});

interface Rig {
  clock: { now: number };
  ledger: PostgresLedger;
  pool: pg.Pool;
  /** An instance on the rig's Redis snapshot (`prefix`: another snapshot of the same database). */
  instance(prefix?: string): Promise<RedisCreditHolds>;
}

/** acct_1 with $1 and key hash_1 whose limit of `limit` nano-USD resets `reset`, on a fresh database. */
async function rig(limit: bigint, reset: KeyLimitReset, start: number): Promise<Rig> {
  const pool = createPostgresPool({ url: await createTestDatabase(), max: 4 });
  pools.push(pool);
  await migratePostgres(pool);
  await pool.query(`INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ('acct_1', 'a', 'user', $1, $2)`, [
    String(1000n * M),
    NOW,
  ]);
  await pool.query(
    `INSERT INTO api_keys (hash, account_id, name, label, limit_nanos, limit_reset, created_at)
    VALUES ('hash_1', 'acct_1', 'k', 'sk-sy-v1-x...y', $1, $2, $3)`,
    [String(limit), reset, NOW],
  );
  const ledger = new PostgresLedger(pool);
  const clock = { now: start };
  const shared = `lr${++prefixes}`;
  return {
    clock,
    ledger,
    pool,
    async instance(prefix = shared) {
      const conn = new RedisConnection({ url: redis.url });
      await conn.connect();
      connections.push(conn);
      return new RedisCreditHolds(conn, {
        loader: (_a, keyHash, ids, days) => ledger.spendState(keyHash, ids, days),
        instanceId: `i${connections.length}`,
        holdMs: 3_600_000,
        settleMs: 3_600_000,
        now: () => clock.now,
        prefix,
      });
    },
  };
}

/** The end of a request begun at `begunAt` (epoch ms): finished, written to Postgres, the commit announced. */
async function settle(r: Rig, h: RedisCreditHolds, id: string, cost: bigint, begunAt: number): Promise<void> {
  assert.equal(await h.finish(id, 'acct_1', 'hash_1', cost), cost);
  const record = { ...settlement(id, cost, false), createdAt: new Date(begunAt).toISOString() };
  await r.ledger.settle([], [record]);
  await h.committed('acct_1', [record]);
}

/** A request costing `cost`, begun and ended at the clock's time. */
async function spend(r: Rig, h: RedisCreditHolds, id: string, cost: bigint): Promise<void> {
  assert.deepEqual(await h.reserve(id, 'acct_1', 'hash_1', cost), { ok: true, heldNanos: cost });
  await settle(r, h, id, cost, r.clock.now);
}

const keyLimit = (availableNanos: bigint) => ({ ok: false, reason: 'key_limit', availableNanos });

test('a daily limit spent is refused until 00:00 UTC, then whole again on the same Redis snapshot', { skip }, async () => {
  const wednesdayNoon = Date.UTC(2026, 0, 7, 12);
  const thursday = Date.UTC(2026, 0, 8);
  const r = await rig(3n * M, 'daily', wednesdayNoon);
  const [a, b] = [await r.instance(), await r.instance()];
  for (let i = 0; i < 3; i++) await spend(r, i % 2 === 0 ? a : b, `w${i}`, M);
  assert.deepEqual(await b.reserve('w3', 'acct_1', 'hash_1', 1n), keyLimit(0n));
  r.clock.now = thursday - 1;
  assert.deepEqual(await a.reserve('w4', 'acct_1', 'hash_1', 1n), keyLimit(0n), 'the last millisecond of Wednesday');
  r.clock.now = thursday;
  assert.deepEqual(await a.reserve('t0', 'acct_1', 'hash_1', 3n * M + 1n), keyLimit(3n * M), 'Thursday: the whole limit, nothing more');
  assert.deepEqual(await b.reserve('t1', 'acct_1', 'hash_1', 3n * M), { ok: true, heldNanos: 3n * M });
  // The key's whole usage still grows in the database; the limit capped Wednesday's only.
  const usage = (await r.pool.query(`SELECT usage_nanos FROM api_keys WHERE hash = 'hash_1'`)).rows[0].usage_nanos;
  assert.equal(BigInt(usage), 3n * M);
});

test('a weekly limit ignores what was spent before Monday 00:00 UTC', { skip }, async () => {
  const friday = Date.UTC(2026, 0, 9, 12);
  const monday = Date.UTC(2026, 0, 12);
  const r = await rig(3n * M, 'weekly', friday);
  const h = await r.instance();
  await spend(r, h, 'fri', M);
  r.clock.now = monday - 3_600_000; // Sunday 23:00
  await spend(r, h, 'sun', 2n * M);
  r.clock.now = monday - 1;
  assert.deepEqual(await h.reserve('sun2', 'acct_1', 'hash_1', 1n), keyLimit(0n), 'the last millisecond of Sunday: the week is spent');
  r.clock.now = monday;
  assert.deepEqual(await h.reserve('mon0', 'acct_1', 'hash_1', 3n * M + 1n), keyLimit(3n * M), 'Monday, same snapshot: the whole limit');
  // A snapshot loaded from the database on Monday agrees: nothing of last week counts.
  const fresh = await r.instance('lr-fresh-weekly');
  assert.deepEqual(await fresh.reserve('mon1', 'acct_1', 'hash_1', 3n * M + 1n), keyLimit(3n * M));
  await spend(r, fresh, 'mon2', M);
  r.clock.now = monday + 6 * 86_400_000; // Sunday again: the same week
  assert.deepEqual(await fresh.reserve('sun3', 'acct_1', 'hash_1', 2n * M + 1n), keyLimit(2n * M));
});

test('a request begun before midnight and settled after does not count in the new day', { skip }, async () => {
  const midnight = Date.UTC(2026, 0, 14);
  const r = await rig(3n * M, 'daily', midnight - 1000);
  const [a, b] = [await r.instance(), await r.instance()];
  const begun = r.clock.now;
  assert.deepEqual(await a.reserve('late', 'acct_1', 'hash_1', M), { ok: true, heldNanos: M });
  r.clock.now = midnight + 1000;
  // Another instance reserves in the new day: the snapshot is read for Wednesday (its usage 0);
  // the late request's hold still counts while it runs.
  assert.deepEqual(await b.reserve('early', 'acct_1', 'hash_1', 2n * M + 1n), keyLimit(2n * M));
  assert.deepEqual(await b.reserve('early', 'acct_1', 'hash_1', M), { ok: true, heldNanos: M });
  await settle(r, a, 'late', M, begun);
  await settle(r, b, 'early', M, r.clock.now);
  // Only the request begun on Wednesday counts in Wednesday's limit.
  assert.deepEqual(await a.reserve('probe', 'acct_1', 'hash_1', 2n * M + 1n), keyLimit(2n * M));
  const days = (await r.pool.query(`SELECT day, cost_nanos FROM usage_daily_keys WHERE key_hash = 'hash_1' ORDER BY day`)).rows;
  assert.deepEqual(
    days.map((d) => [d.day, BigInt(d.cost_nanos)]),
    [
      ['2026-01-13', M],
      ['2026-01-14', M],
    ],
  );
  // The database says the same: a snapshot read afresh finds the same room.
  await b.forget('acct_1', 'hash_1');
  assert.deepEqual(await b.reserve('probe', 'acct_1', 'hash_1', 2n * M + 1n), keyLimit(2n * M));
  assert.deepEqual(await b.reserve('probe', 'acct_1', 'hash_1', 2n * M), { ok: true, heldNanos: 2n * M });
});

test('a monthly limit is whole again on the 1st 00:00 UTC, on the same snapshot', { skip }, async () => {
  const february = Date.UTC(2026, 1, 1);
  const r = await rig(2n * M, 'monthly', Date.UTC(2026, 0, 2, 9));
  const h = await r.instance();
  await spend(r, h, 'jan2', M);
  r.clock.now = february - 1;
  await spend(r, h, 'jan31', M);
  assert.deepEqual(await h.reserve('jan31b', 'acct_1', 'hash_1', 1n), keyLimit(0n));
  r.clock.now = february;
  assert.deepEqual(await h.reserve('feb1', 'acct_1', 'hash_1', 2n * M + 1n), keyLimit(2n * M));
});
