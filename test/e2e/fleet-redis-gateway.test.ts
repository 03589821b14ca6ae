import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { generateApiKey, hashApiKey, labelApiKey } from '../../src/auth/api-key.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { RedisInvalidationBus } from '../../src/shared/redis/redis-invalidation-bus.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { freePort } from '../support/free-port.ts';
import { announceChanges } from '../../src/server/fleet-services.ts';
import { readyAgain, redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A gateway whose credit holds, rate limits and invalidation live in a real Redis
// (fleet-services.ts; its ledger still in SQLite), through real HTTP: it fails closed
// while Redis is gone and serves again by itself when it is back; limits hold across
// gateways sharing the Redis; a change published by another instance reaches its caches.

const skip = redisUnavailable() ?? false;
let redis: RedisServer;

before(async () => {
  if (skip !== false) redis = undefined as never;
  else redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

const ask = (stream = false) => ({ model: 'switchyard/sim-pro', messages: [{ role: 'user', content: 'hi' }], stream });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function spentAndCharged(gw: TestGateway, startNanos: bigint): Promise<{ spent: bigint; charged: bigint; successes: number }> {
  await gw.flush();
  const balance = BigInt((await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos);
  const row = gw.db
    .prepare(`SELECT coalesce(sum(cost_nanos), 0) AS c, sum(status = 'success') AS n FROM generations WHERE account_id = ?`)
    .get(gw.accountId) as { c: number | bigint; n: number | bigint };
  return { spent: startNanos - balance, charged: BigInt(row.c), successes: Number(row.n) };
}

test(
  'Redis gone: model calls get 503 shared_state_unavailable in each dialect and /ready names redis; Redis back: the next call succeeds, every answer charged',
  { skip, timeout: 60_000 },
  async () => {
    const gw = await startTestGateway({ yaml: SIM_ONLY, redis: { url: redis.url } });
    try {
      const start = BigInt((await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos);
      assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key))).status, 200);
      const ready = await fetch(`${gw.origin}/ready`);
      assert.equal(ready.status, 200);
      assert.deepEqual(((await ready.json()) as any).checks.redis, { ok: true, detail: 'reachable' });

      const conn = gw.services.fleet!.connection;
      const lost = once(conn.client, 'error');
      await redis.stop();
      await lost;

      const chat = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key));
      assert.equal(chat.status, 503, chat.text);
      assert.equal(chat.headers.get('retry-after'), '1');
      assert.equal(chat.json.error.code, 'shared_state_unavailable');
      assert.equal(chat.json.error.type, 'service_unavailable_error');
      assert.equal(chat.json.error.metadata.store, 'redis');
      assert.ok(chat.headers.get('x-generation-id'), 'the refusal names its generation');

      const stream = await postJson(`${gw.baseUrl}/chat/completions`, ask(true), bearer(gw.key));
      assert.equal(stream.status, 503, 'a stream is refused before anything is streamed');
      assert.equal(stream.json.error.code, 'shared_state_unavailable');

      const messages = await postJson(
        `${gw.baseUrl}/messages`,
        { model: 'switchyard/sim-fast', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
        { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
      );
      assert.equal(messages.status, 503, messages.text);
      assert.equal(messages.json.type, 'error');
      assert.equal(messages.json.error.type, 'service_unavailable_error');
      assert.equal(messages.json.error.code, 'shared_state_unavailable');

      const responses = await postJson(`${gw.baseUrl}/responses`, { model: 'switchyard/sim-fast', input: 'hi' }, bearer(gw.key));
      assert.equal(responses.status, 503, responses.text);
      assert.equal(responses.json.error.code, 'shared_state_unavailable');

      const gemini = await postJson(
        `${gw.origin}/v1beta/models/switchyard/sim-fast:generateContent`,
        { contents: [{ parts: [{ text: 'hi' }] }] },
        { 'x-goog-api-key': gw.key },
      );
      assert.equal(gemini.status, 503, gemini.text);
      assert.equal(gemini.json.error.status, 'UNAVAILABLE');
      assert.equal(gemini.json.error.details[0].reason, 'SHARED_STATE_UNAVAILABLE');
      assert.equal(gemini.json.error.details[0].metadata.store, 'redis');

      const notReady = await fetch(`${gw.origin}/ready`);
      assert.equal(notReady.status, 503);
      const body = (await notReady.json()) as any;
      assert.deepEqual(body.failing, ['redis']);
      assert.equal(body.checks.redis.ok, false);

      const back = readyAgain(conn.client);
      await redis.restart();
      await back;
      const again = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key));
      assert.equal(again.status, 200, again.text);
      assert.equal((await fetch(`${gw.origin}/ready`)).status, 200);

      // Two answers served, both charged; the refusals charged nothing.
      const { spent, charged, successes } = await spentAndCharged(gw, start);
      assert.equal(successes, 2);
      assert.ok(charged > 0n);
      assert.equal(spent, charged);
    } finally {
      await gw.close();
    }
  },
);

test(
  "a revocation published by another instance drops this instance's auth cache as the message arrives",
  { skip, timeout: 30_000 },
  async () => {
    const prefix = `sy-revoke-${process.pid}`;
    const gw = await startTestGateway({ yaml: SIM_ONLY, redis: { url: redis.url, prefix } });
    const other = new RedisConnection({ url: redis.url });
    await other.connect();
    const bus = await RedisInvalidationBus.open(other, `${prefix}:invalidate`);
    try {
      const status = () => fetch(`${gw.baseUrl.replace('/v1', '/api/v1')}/key`, { headers: bearer(gw.key) }).then((r) => r.status);
      assert.equal(await status(), 200); // the key is in this instance's cache now
      // The database changes behind this instance's back (as another instance's write would),
      // then the other instance announces it.
      await gw.services.stores.accounts.setKeyActive(gw.keyHash, false, 'operator');
      const seen = new Promise<void>((resolve) =>
        gw.services.fleet!.bus.subscribe((m) => {
          if (m.kind === 'key' && m.keyHash === gw.keyHash) resolve();
        }),
      );
      await bus.publish({ kind: 'key', keyHash: gw.keyHash, accountId: gw.accountId });
      await seen;
      assert.equal(await status(), 401);
    } finally {
      await bus.close();
      await other.close();
      await gw.close();
    }
  },
);

test(
  "two gateways sharing a Redis admit a key's per-minute limit once between them, not once each",
  { skip, timeout: 30_000 },
  async () => {
    const prefix = `sy-limits-${process.pid}`;
    const yaml = `${SIM_ONLY}
tiers:
  tier2:
    requests_per_minute: 3
`;
    const gateways = [
      await startTestGateway({ yaml, redis: { url: redis.url, prefix, instanceId: 'a' } }),
      await startTestGateway({ yaml, redis: { url: redis.url, prefix, instanceId: 'b' } }),
    ];
    try {
      // One account and key, known to both (their databases stand in for a shared one).
      const raw = generateApiKey();
      const now = new Date().toISOString();
      for (const gw of gateways) {
        await gw.services.stores.accounts.createAccount({
          id: 'acct_shared',
          name: 'shared',
          accountType: 'user',
          tier: 'tier2',
          defaultModel: null,
          now,
        });
        await gw.services.accountService.addCredits('acct_shared', '10');
        await gw.services.stores.accounts.createKey({
          hash: hashApiKey(raw),
          accountId: 'acct_shared',
          name: 'k',
          label: labelApiKey(raw),
          limitNanos: null,
          isManagement: false,
          expiresAt: null,
          now,
        });
      }
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => postJson(`${gateways[i % 2]!.baseUrl}/chat/completions`, ask(), bearer(raw))),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429]);
    } finally {
      for (const gw of gateways) await gw.close();
    }
  },
);

test(
  'the database behind the balances unreachable: model calls get 503 shared_state_unavailable naming postgres, and /ready names it',
  { skip, timeout: 30_000 },
  async () => {
    // A real Postgres client pointed where no server listens.
    const nowhere = createPostgresPool({ url: `postgres://postgres:pw@127.0.0.1:${await freePort()}/none`, max: 1 });
    const ledger = new PostgresLedger(nowhere);
    const gw = await startTestGateway({
      yaml: SIM_ONLY,
      redis: { url: redis.url, loader: (_a, keyHash, ids, days) => ledger.spendState(keyHash, ids, days) },
    });
    try {
      const chat = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key));
      assert.equal(chat.status, 503, chat.text);
      assert.equal(chat.json.error.code, 'shared_state_unavailable');
      assert.equal(chat.json.error.metadata.store, 'postgres');
      assert.doesNotMatch(chat.text, /pw@/);
      const ready = await fetch(`${gw.origin}/ready`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as any;
      assert.deepEqual(body.failing, ['postgres']);
      assert.doesNotMatch(JSON.stringify(body), /pw@/);
    } finally {
      await gw.close();
      await nowhere.end();
    }
  },
);

test(
  'a change announced by a process that does not serve (the CLI) reaches a running instance: its caches and the shared credit snapshot',
  { skip, timeout: 30_000 },
  async () => {
    const prefix = `sy-announce-${process.pid}`;
    const gw = await startTestGateway({ yaml: SIM_ONLY, redis: { url: redis.url, prefix } });
    try {
      assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key))).status, 200); // cached: auth and snapshot
      await gw.services.stores.accounts.setKeyActive(gw.keyHash, false, 'operator');
      const seen = new Promise<void>((resolve) =>
        gw.services.fleet!.bus.subscribe((m) => {
          if (m.kind === 'key' && m.keyHash === gw.keyHash) resolve();
        }),
      );
      await announceChanges(redis.url, [{ accountId: gw.accountId, keyHash: gw.keyHash }], prefix);
      await seen;
      const refused = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key));
      assert.equal(refused.status, 401, refused.text);
    } finally {
      await gw.close();
    }
  },
);

test(
  'Redis lost while a request runs: its fallback model cannot be counted, so the request fails closed (503) instead of reaching the fallback uncounted',
  { skip, timeout: 30_000 },
  async () => {
    // up-a answers its first request only when told, and with a 500 (retryable: routing falls back).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const upA = createServer((req, res) => {
      req.resume();
      arrived();
      void released.then(() => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}'));
    });
    upA.listen(0, '127.0.0.1');
    await once(upA, 'listening');
    const b = await startOpenAIChatEmulator();
    const model = (id: string, provider: string) => `  - id: acme/${id}
    context_length: 32000
    endpoints:
      - { provider: ${provider}, model: ${id}-up, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;
    const yaml = `sim: false
providers:
  - { id: up-a, kind: openai, base_url: "http://127.0.0.1:${(upA.address() as AddressInfo).port}/v1" }
  - { id: up-b, kind: openai, base_url: "${b.baseUrl}" }
models:
${model('a', 'up-a')}${model('b', 'up-b')}`;
    const gw = await startTestGateway({ yaml, redis: { url: redis.url } });
    try {
      const answer = postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/a', models: ['acme/b'], messages: [{ role: 'user', content: 'hi' }] },
        bearer(gw.key),
      );
      await arrival;
      const conn = gw.services.fleet!.connection;
      const lost = once(conn.client, 'error');
      await redis.stop();
      await lost;
      release();
      const res = await answer;
      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.error.code, 'shared_state_unavailable');
      assert.equal(b.requests.length, 0, 'the fallback was never called');

      const back = readyAgain(conn.client);
      await redis.restart();
      await back;
      const direct = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/b', messages: [{ role: 'user', content: 'hi' }] },
        bearer(gw.key),
      );
      assert.equal(direct.status, 200, `the fallback's endpoint is usable again: ${direct.text}`);
    } finally {
      await gw.close();
      await b.close();
      upA.close();
    }
  },
);
