import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ledgered, settlement, type Ledgered } from '../../src/billing/billing-fixtures.test-util.ts';
import { RedisCreditHolds, type PeriodDays, type SpendStateLoader } from '../../src/billing/redis-credit-holds.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { ReservationStore } from '../../src/store/sqlite/reservation-store.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// The database side is the real SQLite store of the fixtures (one account acct_1 with key
// hash_1); the shared side a real Redis. Each test uses its own key prefix. That the Redis
// holds behave as CreditReservations' (the overshoot rule, refusals, forgetting) is
// credit-holds-contract.test.ts's: the contract suite both implementations run.

const skip = redisUnavailable() ?? false;
let redis: RedisServer;
const connections: RedisConnection[] = [];
const HOLD = 1_000_000n;
let prefixes = 0;

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const c of connections) await c.close();
  await redis?.stop();
});

async function connection(): Promise<RedisConnection> {
  const conn = new RedisConnection({ url: redis.url });
  await conn.connect();
  connections.push(conn);
  return conn;
}

/** Reads the fixture database the way the Postgres loader does: spend state, the limit's period usage, which settling charges the ledger has. */
function sqliteLoader(base: Ledgered): SpendStateLoader & { calls: number } {
  const store = new ReservationStore(base.db);
  const loader = async (_accountId: string, keyHash: string, ids: readonly string[], days: PeriodDays) => {
    loader.calls++;
    return store.loadSpendState(keyHash, ids, days);
  };
  loader.calls = 0;
  return loader;
}

interface Fleet {
  base: Ledgered;
  clock: { now: number };
  instances: RedisCreditHolds[];
}

async function fleet(balance: bigint, limit: bigint | null, size: number, holdMs = 60_000): Promise<Fleet> {
  const base = ledgered(balance, limit);
  const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
  const loader = sqliteLoader(base);
  const prefix = `ch${++prefixes}`;
  const instances = await Promise.all(
    Array.from(
      { length: size },
      async (_, i) =>
        new RedisCreditHolds(await connection(), {
          loader,
          instanceId: `instance-${i}`,
          holdMs,
          settleMs: 120_000,
          now: () => clock.now,
          prefix,
        }),
    ),
  );
  return { base, clock, instances };
}

test('concurrent reserves from 3 instances never together hold more than the balance', { skip }, async () => {
  const { instances } = await fleet(10n * HOLD + HOLD / 2n, null, 3);
  const results = await Promise.all(
    instances.flatMap((h, i) => Array.from({ length: 10 }, (_, j) => h.reserve(`g${i}-${j}`, 'acct_1', 'hash_1', HOLD))),
  );
  assert.equal(results.filter((r) => r.ok).length, 10);
  const refused = results.find((r) => !r.ok);
  assert.deepEqual(refused, { ok: false, reason: 'balance', availableNanos: HOLD / 2n });
  assert.equal(await instances[0]!.heldFor('acct_1'), 10n * HOLD);
});

test("concurrent reserves from 3 instances never together exceed the key's limit", { skip }, async () => {
  const { instances } = await fleet(100n * HOLD, 4n * HOLD, 3);
  const results = await Promise.all(
    instances.flatMap((h, i) => Array.from({ length: 5 }, (_, j) => h.reserve(`g${i}-${j}`, 'acct_1', 'hash_1', HOLD))),
  );
  assert.equal(results.filter((r) => r.ok).length, 4);
  assert.ok(results.some((r) => !r.ok && r.reason === 'key_limit'));
});

test('a tighter worst case is tried when the first does not fit but something is left', { skip }, async () => {
  const {
    instances: [h],
  } = await fleet(HOLD, null, 1);
  const r = await h!.reserve('g1', 'acct_1', 'hash_1', 2n * HOLD, () => HOLD / 2n);
  assert.deepEqual(r, { ok: true, heldNanos: HOLD / 2n });
});

test('settle then commit moves the balance once, also when a load reads the ledger in between', { skip }, async () => {
  const {
    base,
    instances: [a, b],
  } = await fleet(10n * HOLD, null, 2);
  assert.equal((await a!.reserve('g1', 'acct_1', 'hash_1', 2n * HOLD)).ok, true);
  assert.equal((await a!.reserve('g2', 'acct_1', 'hash_1', 2n * HOLD)).ok, true);
  assert.equal(await a!.finish('g1', 'acct_1', 'hash_1', HOLD), HOLD);
  assert.equal(await a!.finish('g2', 'acct_1', 'hash_1', HOLD), HOLD);
  // g1 commits and is announced normally.
  base.ledger.settle([], [settlement('g1', HOLD, false)]);
  await a!.committed('acct_1', [settlement('g1', HOLD, false)]);
  // g2 commits, then a change elsewhere makes instance b reload before g2's commit is announced.
  base.ledger.settle([], [settlement('g2', HOLD, false)]);
  await b!.forget('acct_1');
  // 8 HOLD left in the database: exactly 8 one-HOLD reserves pass, the 9th is refused.
  const results = await Promise.all(Array.from({ length: 9 }, (_, i) => b!.reserve(`x${i}`, 'acct_1', 'hash_1', HOLD)));
  await a!.committed('acct_1', [settlement('g2', HOLD, false)]); // late: the load already counted it
  assert.equal(results.filter((r) => r.ok).length, 8);
  for (let i = 0; i < 8; i++) await b!.finish(`x${i}`, 'acct_1', 'hash_1', 0n);
  assert.equal(await b!.heldFor('acct_1'), 0n);
  const last = await b!.reserve('y', 'acct_1', 'hash_1', 9n * HOLD);
  assert.deepEqual(last, { ok: false, reason: 'balance', availableNanos: 8n * HOLD });
});

test("a dead instance's holds expire and reconciliation releases them", { skip }, async () => {
  const {
    clock,
    instances: [dead, alive],
  } = await fleet(3n * HOLD, null, 2, 30_000);
  for (let i = 0; i < 3; i++) assert.equal((await dead!.reserve(`d${i}`, 'acct_1', 'hash_1', HOLD)).ok, true);
  // The dead instance never finishes them: nothing is left for the live one.
  assert.equal((await alive!.reserve('a1', 'acct_1', 'hash_1', HOLD)).ok, false);
  assert.equal(await alive!.reconcile(), 0, 'nothing expired yet');
  clock.now += 30_001;
  assert.equal(await alive!.reconcile(), 3);
  assert.equal(await alive!.heldFor('acct_1'), 0n);
  assert.equal((await alive!.reserve('a1', 'acct_1', 'hash_1', 3n * HOLD)).ok, true);
  // Its hold is in the index again: it too is released once it expires.
  clock.now += 30_001;
  assert.equal(await alive!.reconcile(), 1);
});

test('a revoked key and a deactivated account are refused on every instance once forgotten', { skip }, async () => {
  const {
    base,
    instances: [a, b],
  } = await fleet(10n * HOLD, null, 2);
  assert.equal((await b!.reserve('g0', 'acct_1', 'hash_1', HOLD)).ok, true);
  base.accounts.setKeyActive('hash_1', false, 'operator');
  await a!.forget('acct_1', 'hash_1');
  assert.deepEqual(await b!.reserve('g1', 'acct_1', 'hash_1', HOLD), { ok: false, reason: 'inactive' });
  base.accounts.setKeyActive('hash_1', true, 'operator');
  await a!.forget('acct_1');
  assert.equal((await b!.reserve('g2', 'acct_1', 'hash_1', HOLD)).ok, true);
});

test('credits granted are seen once forgotten', { skip }, async () => {
  const {
    base,
    instances: [a, b],
  } = await fleet(HOLD, null, 2);
  assert.equal((await b!.reserve('g1', 'acct_1', 'hash_1', 2n * HOLD)).ok, false);
  base.ledger.addEntry('acct_1', 'credit', HOLD, null, '2026-01-01T00:00:00.000Z');
  await a!.forget('acct_1');
  assert.equal((await b!.reserve('g1', 'acct_1', 'hash_1', 2n * HOLD)).ok, true);
});

test(
  "a member's budget counts every hold of the member's keys across instances; an entry from before member budgets is released as before",
  { skip },
  async () => {
    const {
      base,
      instances: [a, b],
    } = await fleet(10n * HOLD, null, 2);
    const prefix = `ch${prefixes}`;
    base.db
      .prepare(
        `INSERT INTO members (id, account_id, email, email_lower, name, role, budget_nanos, budget_reset, created_at)
    VALUES ('mem_1', 'acct_1', 'm@example.com', 'm@example.com', 'm', 'member', ?, 'none', '2026-01-01T00:00:00Z')`,
      )
      .run(3n * HOLD);
    base.db.prepare(`UPDATE api_keys SET member_id = 'mem_1' WHERE hash = 'hash_1'`).run();
    assert.equal((await a!.reserve('m1', 'acct_1', 'hash_1', 2n * HOLD)).ok, true);
    assert.deepEqual(await b!.reserve('m2', 'acct_1', 'hash_1', 2n * HOLD), { ok: false, reason: 'member_budget', availableNanos: HOLD });
    // A hold an instance of the previous version took: its entry names no member.
    const conn = await connection();
    const tag = `${prefix}:{acct_1}`;
    await conn.send(['HSET', `${tag}:entries`, 'old1', `h|hash_1|${HOLD}|instance-old`]);
    await conn.send(['HINCRBY', `${tag}:account`, 'held', String(HOLD)]);
    await conn.send(['HINCRBY', `${tag}:account`, 'k:hash_1:held', String(HOLD)]);
    assert.equal(await b!.heldFor('acct_1'), 3n * HOLD);
    assert.equal(await a!.finish('old1', 'acct_1', 'hash_1', 0n), 0n);
    assert.equal(await b!.heldFor('acct_1'), 2n * HOLD, 'released from the account, the key and no member');
    assert.equal(await a!.finish('m1', 'acct_1', 'hash_1', 0n), 0n);
    assert.equal(await b!.heldFor('acct_1'), 0n);
    assert.equal((await b!.reserve('m3', 'acct_1', 'hash_1', 3n * HOLD)).ok, true, "the member's whole budget is free again");
    assert.deepEqual(await a!.reserve('m4', 'acct_1', 'hash_1', 1n), { ok: false, reason: 'member_budget', availableNanos: 0n });
  },
);
