import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessInvalidationBus, type Invalidation, type InvalidationBus } from '../../src/shared/invalidation-bus.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { RedisInvalidationBus } from '../../src/shared/redis/redis-invalidation-bus.ts';
import { readyAgain, redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

const skip = redisUnavailable() ?? false;
let redis: RedisServer;
const closers: Array<() => Promise<void>> = [];

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const close of closers.reverse()) await close();
  await redis?.stop();
});

async function redisBus(): Promise<{ bus: RedisInvalidationBus; conn: RedisConnection }> {
  const conn = new RedisConnection({ url: redis.url });
  await conn.connect();
  const bus = await RedisInvalidationBus.open(conn);
  closers.push(
    () => conn.close(),
    () => bus.close(),
  );
  return { bus, conn };
}

/** The next message a bus delivers; fails when none comes within `ms` (the fleet's promise: 1 s). */
function next(bus: InvalidationBus, ms = 1000): Promise<Invalidation> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no invalidation within ${ms} ms`)), ms);
    const off = bus.subscribe((m) => {
      clearTimeout(timer);
      off();
      resolve(m);
    });
  });
}

test('in process: a published change reaches the subscribers', async () => {
  const bus = new InProcessInvalidationBus();
  const seen = next(bus);
  await bus.publish({ kind: 'account', accountId: 'acct_1' });
  assert.deepEqual(await seen, { kind: 'account', accountId: 'acct_1' });
});

test('over Redis: a change published through one connection is seen through another within 1 s', { skip }, async () => {
  const { bus: a } = await redisBus();
  const { bus: b } = await redisBus();
  for (const message of [
    { kind: 'key', keyHash: 'hash_1', accountId: 'acct_1' },
    { kind: 'account', accountId: 'acct_2' },
    { kind: 'all' },
  ] as const) {
    const seenByB = next(b);
    const seenByA = next(a);
    await a.publish(message);
    assert.deepEqual(await seenByB, message);
    assert.deepEqual(await seenByA, message, 'the publisher hears itself too');
  }
});

test(
  'over Redis: after an outage the listeners are told to drop everything (messages may have been missed)',
  { skip, timeout: 20_000 },
  async () => {
    const { bus, conn } = await redisBus();
    const dropAll = next(bus, 15_000);
    await redis.stop();
    await assert.rejects(bus.publish({ kind: 'all' }), { name: 'SharedStateUnavailable' });
    const ready = readyAgain(conn.client);
    await redis.restart();
    assert.deepEqual(await dropAll, { kind: 'all' });
    await ready;
    // And it works as before.
    const seen = next(bus);
    await bus.publish({ kind: 'account', accountId: 'acct_3' });
    assert.deepEqual(await seen, { kind: 'account', accountId: 'acct_3' });
  },
);
