import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessInFlightLimiter } from '../../src/limits/in-flight-limiter.ts';
import { RedisInFlightLimiter } from '../../src/limits/redis-in-flight-limiter.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// A key's max_in_flight leases in Redis (limits/redis-in-flight-limiter.ts): exact across
// instances, given back by release, renewed while held, and expired when their instance
// dies (stops renewing without releasing).

const skip = redisUnavailable() ?? false;
let redis: RedisServer;
const connections: RedisConnection[] = [];
const limiters: RedisInFlightLimiter[] = [];

async function instance(leaseMs: number, prefix: string): Promise<{ limiter: RedisInFlightLimiter; conn: RedisConnection }> {
  const conn = new RedisConnection({ url: redis.url });
  await conn.connect();
  connections.push(conn);
  const limiter = new RedisInFlightLimiter(conn, { leaseMs, prefix });
  limiters.push(limiter);
  return { limiter, conn };
}

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const l of limiters) l.close();
  for (const c of connections) await c.close();
  await redis?.stop();
});

test('3 instances taking leases of one key at once get exactly the cap; a release frees one slot', { skip }, async () => {
  const all = await Promise.all([0, 1, 2].map(() => instance(30_000, 'exact')));
  const tries = all.flatMap(({ limiter }, i) =>
    Array.from({ length: 10 }, (_, j) =>
      limiter.acquire('hash_1', 'acct_1', 4, `gen-${i}-${j}`).then((ok) => (ok ? `gen-${i}-${j}` : null)),
    ),
  );
  const taken = (await Promise.all(tries)).filter((id): id is string => id !== null);
  assert.equal(taken.length, 4);
  assert.equal(await all[0]!.limiter.acquire('hash_2', 'acct_1', 1, 'other-key'), true, 'another key has its own slots');
  const [owner] = taken[0]!.split('-').slice(1, 2).map(Number);
  await all[owner!]!.limiter.release('hash_1', 'acct_1', taken[0]!);
  assert.equal(await all[2]!.limiter.acquire('hash_1', 'acct_1', 4, 'late-1'), true);
  assert.equal(await all[1]!.limiter.acquire('hash_1', 'acct_1', 4, 'late-2'), false);
});

test("held leases are renewed; a dead instance's leases expire within the lease time", { skip }, async () => {
  const a = await instance(600, 'crash');
  const b = await instance(600, 'crash');
  assert.equal(await a.limiter.acquire('hash_1', 'acct_1', 1, 'gen-a'), true);
  const key = 'crash:{acct_1}:hash_1';
  const firstExpiry = Number(await a.conn.send<string>(['ZSCORE', key, 'gen-a']));
  // Renewed (every lease/3) while held: the expiry moves on, and the lease outlives its first expiry.
  for (;;) {
    const now = Number(await a.conn.send<string>(['ZSCORE', key, 'gen-a']));
    if (now > firstExpiry) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (;;) {
    const [seconds, micros] = await a.conn.send<string[]>(['TIME']);
    if (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) > firstExpiry) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await b.limiter.acquire('hash_1', 'acct_1', 1, 'gen-b'), false, 'renewed past its first expiry');

  // The instance dies: no release, no more renewals.
  a.limiter.close();
  const died = Date.now();
  let freed = false;
  while (!freed && Date.now() - died < 5_000) {
    freed = await b.limiter.acquire('hash_1', 'acct_1', 1, 'gen-b');
    if (!freed) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(freed, "the dead instance's lease expired");
});

test('in one process, a count per key', () => {
  const l = new InProcessInFlightLimiter();
  assert.equal(l.acquire('k', 'a', 2), true);
  assert.equal(l.acquire('k', 'a', 2), true);
  assert.equal(l.acquire('k', 'a', 2), false);
  l.release('k');
  assert.equal(l.held('k'), 1);
  assert.equal(l.acquire('k', 'a', 2), true);
});
