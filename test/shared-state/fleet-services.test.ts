import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFleetServices } from '../../src/server/fleet-services.ts';
import { SharedStateUnavailable } from '../../src/shared/shared-state-unavailable.ts';
import { freePort } from '../support/free-port.ts';
import { redisUnavailable, startRedis } from '../support/redis-server.ts';

// Building a fleet instance's Redis side (fleet-services.ts) on a real Redis.

const skip = redisUnavailable() ?? false;
const loader = async () => undefined;

test('with Redis unreachable at start, building the fleet pieces fails with SharedStateUnavailable naming Redis, never the URL', { skip, timeout: 20_000 }, async () => {
  const url = `redis://:secret-pw@127.0.0.1:${await freePort()}`;
  const logs: string[] = [];
  const err = await createFleetServices({ redisUrl: url }, { loader, holdMs: 1000, log: (m) => logs.push(m), connectTimeoutMs: 200 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof SharedStateUnavailable, String(err));
  assert.equal(err.store, 'redis');
  assert.doesNotMatch(err.message, /secret-pw/);
  for (const line of logs) assert.doesNotMatch(line, /secret-pw/);
});

test('built on a running Redis: ready, and close() closes its connections (the listening one too: nothing keeps this test process alive)', { skip, timeout: 20_000 }, async () => {
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
});
