import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFleetServices, watchSpendLoads } from '../../src/server/fleet-services.ts';
import { SharedStateUnavailable } from '../../src/shared/shared-state-unavailable.ts';
import { freePort } from '../support/free-port.ts';
import { redisUnavailable, startRedis } from '../support/redis-server.ts';

// Building a fleet instance's Redis side (fleet-services.ts) on a real Redis.

const skip = redisUnavailable() ?? false;
const loader = async () => undefined;

test(
  'with Redis unreachable at start, building the fleet pieces fails with SharedStateUnavailable naming Redis, never the URL',
  { skip, timeout: 20_000 },
  async () => {
    const url = `redis://:secret-pw@127.0.0.1:${await freePort()}`;
    const logs: string[] = [];
    const err = await createFleetServices(
      { redisUrl: url },
      { loader, holdMs: 1000, log: (m) => logs.push(m), connectTimeoutMs: 200 },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof SharedStateUnavailable, String(err));
    assert.equal(err.store, 'redis');
    assert.doesNotMatch(err.message, /secret-pw/);
    for (const line of logs) assert.doesNotMatch(line, /secret-pw/);
  },
);

test(
  'built on a running Redis: ready, and close() closes its connections (the listening one too: nothing keeps this test process alive)',
  { skip, timeout: 20_000 },
  async () => {
    const redis = await startRedis();
    try {
      const fleet = await createFleetServices({ redisUrl: redis.url }, { loader, holdMs: 1000, log: () => {}, instanceId: 'i1' });
      assert.deepEqual(fleet.redisCheck(), { ok: true, detail: 'reachable' });
      assert.deepEqual(fleet.postgresCheck(), { ok: true, detail: 'reachable' });
      assert.equal(fleet.instanceId, 'i1');
      await fleet.close();
      assert.equal(fleet.connection.client.isOpen, false);
    } finally {
      await redis.stop();
    }
  },
);

test("/ready's Postgres check names a reason, never the server's address", async () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' });
  let fail = true;
  const watched = watchSpendLoads(async () => {
    if (fail) throw new SharedStateUnavailable('postgres', refused.message, { cause: refused });
    return undefined;
  });
  await assert.rejects(watched.loader('a', 'k', [], () => []));
  const check = watched.postgresCheck();
  assert.equal(check.ok, false);
  assert.match(check.detail, /connection refused/);
  assert.doesNotMatch(check.detail, /10\.1\.2\.3|5432/);
  fail = false;
  await watched.loader('a', 'k', [], () => []);
  assert.deepEqual(watched.postgresCheck(), { ok: true, detail: 'reachable' });
});
