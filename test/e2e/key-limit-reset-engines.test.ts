import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';

// A key's limit_reset enforced alike on every engine, through a real gateway over HTTP:
// SQLite with the in-process holds (the reference), SQLite with the holds in Redis, and a
// fleet instance on Postgres and Redis. The gateway's clock is injected (one clock for
// requests, holds and the key APIs) and moved across UTC midnight and Monday; nothing
// forgets the holds' snapshot in between. The upstream charges every answer $0.00014
// (100 prompt tokens at $0.000001, 20 completion tokens at $0.000002); each key's limit of
// $0.00042 pays exactly three.

const LIMIT = '0.00042';
const DAY_MS = 86_400_000;
const chat = { model: 'acme/mock-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
/** Its worst case is beyond any key's limit here: refused with what the key has left. */
const probe = { ...chat, max_tokens: 30_000 };
const redisSkip = redisUnavailable() ?? false;
const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;

/** One Redis for the file, started by the first engine that needs it (the promise: engines may start at once). */
let redis: Promise<RedisServer> | undefined;
async function redisUrl(): Promise<string> {
  redis ??= startRedis();
  return (await redis).url;
}
after(async () => {
  await (await redis)?.stop();
  await stopPostgres();
});

interface Engine {
  name: string;
  skip: string | false;
  options(): Promise<Partial<TestGatewayOptions>>;
  /** The key prefix of the credit holds in Redis; null: the holds are in process. */
  holdsPrefix: string | null;
}

const ENGINES: Engine[] = [
  { name: 'SQLite, holds in process', skip: false, options: async () => ({}), holdsPrefix: null },
  {
    name: 'SQLite, holds in Redis',
    skip: redisSkip,
    options: async () => ({ redis: { url: await redisUrl(), prefix: 'lr-sqlite' } }),
    holdsPrefix: 'lr-sqlite:ch',
  },
  {
    name: 'Postgres and Redis (a fleet instance)',
    skip: fleetSkip,
    options: async () => ({ env: { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: await redisUrl() } }),
    holdsPrefix: 'sy:ch',
  },
];

for (const engine of ENGINES) {
  describe(`a key's limit_reset over HTTP: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let upstream: HookedUpstream;
    let mgmt: string;
    let now = Date.UTC(2026, 0, 7, 12); // Wednesday 7 January 2026, 12:00 UTC
    before(async () => {
      upstream = await startHookedUpstream();
      const options = await engine.options();
      gw = await startTestGateway({
        yaml: emulatorConfig(upstream.baseUrl),
        credits: '20',
        now: () => now,
        ...options,
        env: { LOCAL_KEY: 'k', ...options.env },
      });
      mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
    });
    after(async () => {
      await gw?.close();
      await upstream?.close();
    });

    async function createKey(name: string, reset: 'daily' | 'weekly'): Promise<{ key: string; hash: string }> {
      const res = await postJson(
        `${gw.origin}/api/v1/keys`,
        { name, limit: LIMIT, limit_reset: reset },
        { authorization: `Bearer ${mgmt}` },
      );
      assert.equal(res.status, 201, res.text);
      return { key: res.json.key, hash: res.json.data.hash };
    }

    const complete = (key: string, body: unknown = chat) =>
      postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` });

    /** Sends requests until one is refused; returns how many were answered and the refusal. */
    async function spendUntilRefused(key: string): Promise<{ ok: number; refused: Awaited<ReturnType<typeof complete>> }> {
      for (let ok = 0; ok < 10; ok++) {
        const res = await complete(key);
        if (res.status !== 200) return { ok, refused: res };
      }
      throw new Error('the key was never refused');
    }

    /** What the key's limit has left, as its holds see it (the refusal of `probe`) and as the database does (GET /api/v1/keys/{hash}). */
    async function left(key: string, hash: string): Promise<{ holds: string; database: number }> {
      const res = await complete(key, probe);
      assert.equal(res.status, 402, res.text);
      assert.equal(res.json.error.metadata.reason, 'key_limit');
      await gw.flush();
      const record = await fetch(`${gw.origin}/api/v1/keys/${hash}`, { headers: { authorization: `Bearer ${mgmt}` } });
      return {
        holds: res.json.error.metadata.available,
        database: ((await record.json()) as { data: { limit_remaining: number } }).data.limit_remaining,
      };
    }

    /** The end of this key's reset period in the holds' Redis snapshot (null: the holds are in process). */
    async function snapshotPeriodEnd(hash: string): Promise<string | null> {
      if (engine.holdsPrefix === null) return null;
      return gw.services.fleet!.connection.send<string | null>([
        'HGET',
        `${engine.holdsPrefix}:{${gw.accountId}}:account`,
        `k:${hash}:pend`,
      ]);
    }

    /** Waits until the holds have heard of request `id`'s commit (in Redis: its settling entry is gone). */
    async function settledInHolds(id: string): Promise<void> {
      if (engine.holdsPrefix === null) return; // in process: moved in the commit's own callback
      const entries = `${engine.holdsPrefix}:{${gw.accountId}}:entries`;
      while ((await gw.services.fleet!.connection.send<number>(['HEXISTS', entries, id])) === 1) await new Promise(setImmediate);
    }

    test('a daily limit spent is refused with 402 key_limit in each dialect, then admitted again at 00:00 UTC on the same snapshot', async () => {
      const { key, hash } = await createKey('daily', 'daily');
      const spent = await spendUntilRefused(key);
      assert.equal(spent.ok, 3, 'three answers fit in the limit');
      assert.equal(spent.refused.status, 402);
      assert.equal(spent.refused.json.error.type, 'insufficient_quota_error');
      assert.equal(spent.refused.json.error.code, 'insufficient_quota');
      assert.equal(spent.refused.json.error.metadata.reason, 'key_limit');
      assert.equal(spent.refused.json.error.metadata.available, '0');
      const messages = await postJson(`${gw.baseUrl}/messages`, chat, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
      assert.equal(messages.status, 402, messages.text);
      assert.equal(messages.json.type, 'error');
      assert.equal(messages.json.error.type, 'insufficient_quota_error');
      assert.equal(messages.json.error.metadata.reason, 'key_limit');

      const thursday = Date.UTC(2026, 0, 8);
      now = thursday - 1;
      assert.equal((await complete(key)).status, 402, 'the last millisecond of Wednesday');
      const end = await snapshotPeriodEnd(hash);
      if (end !== null) assert.equal(Number(end), thursday, "the snapshot holds Wednesday's usage");
      now = thursday;
      assert.equal((await complete(key)).status, 200, 'Thursday: the limit is whole again');
      const next = await snapshotPeriodEnd(hash);
      if (next !== null) assert.equal(Number(next), thursday + DAY_MS, 'read afresh at the period end');
      assert.deepEqual(await left(key, hash), { holds: '0.00028', database: 0.00028 });
    });

    test('a weekly limit ignores what was spent before Monday 00:00 UTC', async () => {
      const monday = Date.UTC(2026, 0, 12);
      now = monday - 12 * 3_600_000; // Sunday noon
      const { key, hash } = await createKey('weekly', 'weekly');
      assert.equal((await spendUntilRefused(key)).ok, 3);
      now = monday - 1;
      assert.equal((await complete(key)).status, 402, 'the last millisecond of Sunday');
      now = monday;
      assert.equal((await complete(key)).status, 200);
      assert.deepEqual(await left(key, hash), { holds: '0.00028', database: 0.00028 });
    });

    test('a request begun before midnight and settled after does not count in the new day', async () => {
      const wednesday = Date.UTC(2026, 0, 14);
      now = wednesday - 1000;
      const { key, hash } = await createKey('straddle', 'daily');
      let arrived!: () => void;
      const upstreamHasIt = new Promise<void>((resolve) => (arrived = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      upstream.onNextRequest = () => {
        arrived();
        return held;
      };
      const late = complete(key); // begun on Tuesday
      await upstreamHasIt;
      now = wednesday + 1000;
      assert.equal((await complete(key)).status, 200, "Wednesday's first request");
      release();
      const lateAnswer = await late;
      assert.equal(lateAnswer.status, 200);
      await settledInHolds(lateAnswer.headers.get('x-generation-id')!);
      // Only Wednesday's request counts in Wednesday's limit, in the holds and in the database.
      assert.deepEqual(await left(key, hash), { holds: '0.00028', database: 0.00028 });
      const usage = await fetch(`${gw.origin}/api/v1/keys/${hash}`, { headers: { authorization: `Bearer ${mgmt}` } });
      assert.equal(((await usage.json()) as { data: { usage: number } }).data.usage, 0.00028, 'the key has spent both');
    });
  });
}
