import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessRateLimiter } from '../../src/limits/in-process-rate-limiter.ts';
import type { RateRule } from '../../src/limits/rate-limiter.ts';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

const skip = redisUnavailable() ?? false;
let redis: RedisServer;
const connections: RedisConnection[] = [];

async function connection(): Promise<RedisConnection> {
  const conn = new RedisConnection({ url: redis.url });
  await conn.connect();
  connections.push(conn);
  return conn;
}

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const c of connections) await c.close();
  await redis?.stop();
});

test('N per minute across 3 instances hammering at once admits exactly N, not 3N', { skip }, async () => {
  const limit = 50;
  const instances = await Promise.all([0, 1, 2].map(async () => new RedisRateLimiter(await connection())));
  const rule: RateRule = { bucket: 'k:hash_1:a/m', kind: 'rolling', limit, periodMs: 60_000 };
  const day: RateRule = { bucket: 'd:hash_1', kind: 'calendar', limit: 1000, periodMs: 86_400_000 };
  const attempts = instances.flatMap((rl) => Array.from({ length: limit }, () => rl.admit([rule, day], Date.now(), 'acct_1')));
  const decisions = await Promise.all(attempts);
  assert.equal(decisions.length, 3 * limit);
  assert.equal(decisions.filter((d) => d.allowed).length, limit);
  // The refused requests counted against no rule: the daily window shows only the admitted ones.
  const after = await instances[0]!.admit([day], Date.now(), 'acct_1');
  assert.equal(after.remaining, 1000 - limit - 1);
});

test('a daily calendar window shared by 3 instances admits exactly its limit', { skip }, async () => {
  const instances = await Promise.all([0, 1, 2].map(async () => new RedisRateLimiter(await connection())));
  const day: RateRule = { bucket: 'd:hash_2', kind: 'calendar', limit: 40, periodMs: 86_400_000 };
  const decisions = await Promise.all(instances.flatMap((rl) => Array.from({ length: 40 }, () => rl.admit([day], Date.now(), 'acct_2'))));
  assert.equal(decisions.filter((d) => d.allowed).length, 40);
  const refused = decisions.find((d) => !d.allowed)!;
  assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 86_400_000);
});

test('the Redis limiter decides a scripted sequence exactly as the in-process one (seeded)', { skip }, async () => {
  const memory = new InProcessRateLimiter();
  const shared = new RedisRateLimiter(await connection(), { clock: 'caller', prefix: 'conformance' });
  const random = seededRandom(20261124);
  const pool: RateRule[] = [
    { bucket: 'k:a', kind: 'rolling', limit: 7, periodMs: 60_000 },
    { bucket: 'k:b', kind: 'rolling', limit: 3, periodMs: 10_000 },
    { bucket: 'a:1', kind: 'rolling', limit: 11, periodMs: 60_000 },
    { bucket: 'd:a', kind: 'calendar', limit: 25, periodMs: 86_400_000 },
    { bucket: 'm:a', kind: 'calendar', limit: 5, periodMs: 60_000 },
  ];
  let now = Date.UTC(2026, 10, 23, 23, 50);
  let refusals = 0;
  for (let step = 0; step < 400; step++) {
    now += Math.floor(random() * random() * 9_000);
    const rules = pool.filter(() => random() < 0.5);
    const expected = memory.admit(rules, now);
    const actual = await shared.admit(rules, now);
    assert.deepEqual(actual, expected, `step ${step} at ${now} with ${rules.map((r) => r.bucket).join(',')}`);
    if (!expected.allowed) refusals++;
  }
  // The sequence crosses midnight and refuses often enough to compare refusals too.
  assert.ok(refusals > 50, `${refusals} refusals`);
});

test('with no rules every request passes', { skip }, async () => {
  const d = await new RedisRateLimiter(await connection()).admit([], 0);
  assert.equal(d.allowed, true);
  assert.equal(d.rule, null);
});

test("Redis's own clock decides by default: a refusal's reset time is in Redis's present", { skip }, async () => {
  const rl = new RedisRateLimiter(await connection());
  const rule: RateRule = { bucket: 'k:clock', kind: 'rolling', limit: 1, periodMs: 60_000 };
  // A caller clock far in the past is ignored: Redis's TIME is the clock.
  assert.equal((await rl.admit([rule], 0)).allowed, true);
  const refused = await rl.admit([rule], 0);
  assert.equal(refused.allowed, false);
  assert.ok(refused.resetAtMs > Date.UTC(2025, 0, 1), `reset at ${refused.resetAtMs}`);
});
