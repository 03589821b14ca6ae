import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { call } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A key's cap on concurrent requests (`max_in_flight`, docs/governance.md#concurrent-requests):
// the next request is refused 429 with Retry-After in its dialect's rate-limit shape, and a
// lease is given back on every outcome. Requests overlap for sure: the upstream holds its
// answers until the test opens a gate.

const ask = (extra: Record<string, unknown> = {}) => ({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'hi' }], ...extra });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Sends requests until one is not refused for the cap (the lease of a request that just ended is being given back). */
async function untilAdmitted(send: () => Promise<{ status: number; text: string }>): Promise<{ status: number; text: string }> {
  for (let i = 0; i < 200; i++) {
    const res = await send();
    if (res.status !== 429) return res;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('still refused for the cap');
}

async function newKey(gw: TestGateway, mgmt: string, body: Record<string, unknown>): Promise<{ key: string; hash: string }> {
  const res = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'capped', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return { key: res.json.key, hash: res.json.data.hash };
}

describe('max_in_flight on one gateway (SQLite)', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: emulatorConfig(emu.baseUrl),
      env: { LOCAL_KEY: 'upstream-key' },
      tweak: (c) => {
        c.timeouts.disconnectGraceMs = 0;
      },
    });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'manager', management: true })).key;
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test("the request past the cap is refused 429 with Retry-After, in each dialect's shape; the slots come back as requests end", async () => {
    emu.reset();
    const k = await newKey(gw, mgmt, { max_in_flight: 2 });
    const g = gate();
    emu.enqueue({ fault: 'held', until: g.until }, { fault: 'held', until: g.until });
    const first = postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key));
    const second = postJson(`${gw.baseUrl}/chat/completions`, ask({ stream: true }), bearer(k.key));
    await emu.whenRequests(2);

    const refused = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key));
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.json.error.type, 'rate_limit_error');
    assert.equal(refused.json.error.code, 'rate_limited');
    assert.match(refused.json.error.message, /max_in_flight/);
    const messages = await postJson(
      `${gw.baseUrl}/messages`,
      { model: 'acme/mock-1', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': k.key },
    );
    assert.equal(messages.status, 429);
    assert.equal(messages.json.error.type, 'rate_limit_error');
    assert.equal(messages.headers.get('retry-after'), '1');
    // Another key of the account has its own slots (none here): not refused.
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(gw.key))).status, 200);
    assert.equal(emu.requests.length, 3, 'the refused requests never went upstream');

    g.open();
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
    // Each answer gave its lease back before its last bytes: the next ones pass at once.
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 200);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask({ stream: true }), bearer(k.key))).status, 200);
  });

  test('a lease is given back after an upstream error, a refusal after admission and a client that left', async () => {
    emu.reset();
    const k = await newKey(gw, mgmt, { max_in_flight: 1, limit: 0 });
    // Refused by the key's limit (402) after the lease was taken: given back.
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 402);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 402, 'not 429: the lease came back');
    assert.equal((await call('PATCH', `${gw.origin}/api/v1/keys/${k.hash}`, mgmt, { limit: null })).status, 200);

    // The upstream fails (not retried): given back.
    emu.enqueue({ fault: 'status', status: 400 });
    const failed = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key));
    assert.notEqual(failed.status, 200);
    assert.notEqual(failed.status, 429);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 200);

    // The client leaves while the upstream holds its answer: the cap holds while the upstream
    // call runs, and the lease comes back once it was cancelled (disconnect_grace_ms 0).
    emu.reset();
    const g = gate();
    emu.enqueue({ fault: 'held', until: g.until });
    const abort = new AbortController();
    const left = fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      body: JSON.stringify(ask()),
      signal: abort.signal,
    }).catch(() => null);
    await emu.whenRequests(1);
    abort.abort();
    await left;
    const after = await untilAdmitted(() => postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key)));
    assert.equal(after.status, 200, after.text);
    g.open();
  });
});

const skip = postgresUnavailable() ?? redisUnavailable() ?? false;

describe('max_in_flight across a fleet (Postgres + Redis, two gateways)', { skip }, () => {
  let redis: RedisServer;
  let emu: OpenAIChatEmulator;
  let a: TestGateway;
  let b: TestGateway;
  before(async () => {
    redis = await startRedis();
    emu = await startOpenAIChatEmulator();
    const env = { DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url, LOCAL_KEY: 'upstream-key' };
    a = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env });
    b = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await emu?.close();
    await redis?.stop();
    await stopPostgres();
  });

  test("the cap counts the key's requests on every instance, exactly, and frees as they end", async () => {
    const mgmt = (await a.services.accountService.createKey({ accountId: a.accountId, name: 'manager', management: true })).key;
    const k = await newKey(a, mgmt, { max_in_flight: 2, allowed_models: ['acme/*'] });
    const g = gate();
    emu.enqueue({ fault: 'held', until: g.until }, { fault: 'held', until: g.until });
    const onA = postJson(`${a.baseUrl}/chat/completions`, ask(), bearer(k.key));
    const onB = postJson(`${b.baseUrl}/chat/completions`, ask({ stream: true }), bearer(k.key));
    await emu.whenRequests(2);
    for (const gw of [a, b]) {
      const refused = await postJson(`${gw.baseUrl}/chat/completions`, ask(), bearer(k.key));
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.headers.get('retry-after'), '1');
    }
    g.open();
    assert.equal((await onA).status, 200);
    assert.equal((await onB).status, 200);
    // Given back (awaited in Redis) before each answer's last bytes: the next pass on either instance.
    assert.equal((await postJson(`${b.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 200);
    assert.equal((await postJson(`${a.baseUrl}/chat/completions`, ask(), bearer(k.key))).status, 200);
    // An allowlist changed on one instance (in Postgres, announced on the bus) holds on the other.
    const narrowed = await call('PATCH', `${a.origin}/api/v1/keys/${k.hash}`, mgmt, { allowed_models: ['acme/other'] });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.json));
    let refused: { status: number; json: any } | null = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      const res = await postJson(`${b.baseUrl}/chat/completions`, ask(), bearer(k.key));
      if (res.status === 400) refused = res;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(refused?.json.error.code, 'model_not_found');
  });
});
