import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { RedisCreditHolds } from '../../src/billing/redis-credit-holds.ts';
import type { RateRule } from '../../src/limits/rate-limiter.ts';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { SharedStateUnavailable } from '../../src/shared/shared-state-unavailable.ts';
import { readyAgain, redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// Redis going away and coming back: every call rejects with SharedStateUnavailable while it
// is gone (no offline queue: nothing waits for it; the test's timeout would catch a hang),
// and the same client serves again once it is back (scripts reloaded on NOSCRIPT).

const skip = redisUnavailable() ?? false;
let redis: RedisServer;
let conn: RedisConnection;

before(async () => {
  if (skip !== false) return;
  redis = await startRedis();
  conn = new RedisConnection({ url: redis.url, maxReconnectDelayMs: 200 });
  await conn.connect();
});
after(async () => {
  await conn?.close();
  await redis?.stop();
});

const rule: RateRule = { bucket: 'k:x', kind: 'rolling', limit: 100, periodMs: 60_000 };
const loader = async () => ({
  balanceNanos: 10_000n,
  accountActive: true,
  usageNanos: 0n,
  limitNanos: null,
  limitReset: null,
  limitUsageNanos: 0n,
  keyActive: true,
  expiresAt: null,
  committedIds: [],
});

test(
  'with Redis down calls fail fast with SharedStateUnavailable; when it is back the same client serves again',
  { skip, timeout: 20_000 },
  async () => {
    const limiter = new RedisRateLimiter(conn);
    const holds = new RedisCreditHolds(conn, { loader, instanceId: 'i1', holdMs: 60_000, settleMs: 60_000 });
    assert.equal((await limiter.admit([rule], Date.now())).allowed, true);
    assert.equal((await holds.reserve('g1', 'acct_1', 'hash_1', 100n)).ok, true);

    const lost = once(conn.client, 'error');
    await redis.stop();
    await lost;
    for (const call of [
      () => limiter.admit([rule], Date.now()),
      () => holds.reserve('g2', 'acct_1', 'hash_1', 100n),
      () => holds.reconcile(),
    ]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof SharedStateUnavailable, `rejected with ${String(err)}`);
      assert.equal(err.store, 'redis');
    }

    const ready = readyAgain(conn.client);
    await redis.restart();
    await ready;
    // A fresh server: scripts are loaded again (NOSCRIPT) and the snapshot reloaded.
    assert.equal((await limiter.admit([rule], Date.now())).allowed, true);
    assert.equal((await holds.reserve('g3', 'acct_1', 'hash_1', 100n)).ok, true);
  },
);

test('an instance that starts while Redis is down fails closed, then serves once Redis comes up', { skip, timeout: 20_000 }, async () => {
  const server = await startRedis();
  await server.stop();
  const late = new RedisConnection({ url: server.url, maxReconnectDelayMs: 200 });
  try {
    await late.connect(); // returns after its timeout: Redis is not there yet
    const limiter = new RedisRateLimiter(late);
    const err = await limiter.admit([rule], Date.now()).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof SharedStateUnavailable, `rejected with ${String(err)}`);
    const ready = readyAgain(late.client);
    await server.restart();
    await ready;
    assert.equal((await limiter.admit([rule], Date.now())).allowed, true);
  } finally {
    await late.close();
    await server.stop();
  }
});

test(
  'a reply that arrived while the event loop was busy past the command timeout is taken, not counted as an outage',
  { skip, timeout: 20_000 },
  async () => {
    const quick = new RedisConnection({ url: redis.url, commandTimeoutMs: 50 });
    await quick.connect();
    try {
      assert.equal(await quick.send(['PING']), 'PONG');
      const reply = quick.send<string>(['PING']);
      // One turn of the loop: the command is written. Then the loop is held (a long GC, a
      // starved CPU) past the timeout while the reply arrives; the timer is overdue when it runs.
      await new Promise((resolve) => setImmediate(resolve));
      const until = performance.now() + 250;
      while (performance.now() < until);
      assert.equal(await reply, 'PONG');
    } finally {
      await quick.close();
    }
  },
);
