import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A pool credential's state is the fleet's (issue 25 §1): two gateways on one Postgres and one
// Redis. A credential taken out by a 401 on one gateway is out on the other; one whose
// upstream said `x-ratelimit-remaining-requests: 0` is passed over by the other until the
// reset; one cooled by a 429 on one is shown cooling by the other's admin API. Each provider
// has two credentials, the first drawn almost always (weights 10^6 : 10^-6), so the emulator's
// record of which key each request carried says whose state each gateway followed.

const KEY_FIRST = 'fleet-state-first-9Kq2Wm4x';
const KEY_SECOND = 'fleet-state-second-4Jd8Kp1z';
const skip = redisUnavailable() ?? postgresUnavailable() ?? false;

const provider = (id: string, base: string) => `  - id: ${id}
    kind: openai
    base_url: "${base}"
    api_keys:
      - { key: "${KEY_FIRST}", label: first, weight: 1000000 }
      - { key: "${KEY_SECOND}", label: second, weight: 0.000001 }
`;
const model = (id: string) => `  - id: acme/${id}
    context_length: 32000
    endpoints:
      - { provider: ${id}, model: mock-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;

describe('pool credential state across a fleet (two gateways, Postgres + Redis)', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let emu: OpenAIChatEmulator;
  let gateways: TestGateway[] = [];
  let admins: string[] = [];
  before(async () => {
    redis = await startRedis();
    emu = await startOpenAIChatEmulator();
    const url = await createTestDatabase();
    const yaml = `sim: false
providers:
${provider('removed', emu.baseUrl)}${provider('spent', emu.baseUrl)}${provider('cooled', emu.baseUrl)}models:
${model('removed')}${model('spent')}${model('cooled')}`;
    const env = { DATABASE_URL: url, REDIS_URL: redis.url };
    gateways = [await startTestGateway({ yaml, env }), await startTestGateway({ yaml, env })];
    assert.equal(gateways[0]!.services.stores.engine, 'postgres');
    admins = [(await createAdminKey(gateways[0]!)).key, (await createAdminKey(gateways[1]!)).key];
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await emu?.close();
    await redis?.stop();
    await stopPostgres();
  });

  const ask = (i: number, id: string) =>
    postJson(
      `${gateways[i]!.baseUrl}/chat/completions`,
      { model: `acme/${id}`, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gateways[i]!.key}` },
    );
  const keysSeen = () => emu.requests.map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));
  const credential = async (i: number, providerId: string, label: string) => {
    const res = await call('GET', `${gateways[i]!.baseUrl}/admin/health`, admins[i]!);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.data.providers.find((p: any) => p.id === providerId).credentials.find((c: any) => c.label === label);
  };
  /** Until Redis holds a key matching `pattern` (the write is off the request path): waits on the event, failing after 10 s. */
  const written = async (pattern: string) => {
    const conn = gateways[0]!.services.fleet!.connection;
    const deadline = performance.now() + 10_000;
    while (((await conn.send<string[]>(['KEYS', pattern])) ?? []).length === 0) {
      assert.ok(performance.now() < deadline, `nothing in Redis matches ${pattern}`);
      await new Promise(setImmediate);
    }
  };

  test('a 401 on one gateway takes the credential out on the other too (its admin API says removed)', async () => {
    emu.reset();
    emu.enqueue({
      fault: 'status',
      status: 401,
      body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
    });
    const first = await ask(0, 'removed');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(keysSeen(), [KEY_FIRST, KEY_SECOND], 'the same request went on with the other credential');
    await written('*{removed}:first:out:*');
    emu.reset();
    for (let n = 0; n < 3; n++) assert.equal((await ask(1, 'removed')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SECOND, KEY_SECOND, KEY_SECOND], 'the other gateway never sends the refused key');
    const seen = await credential(1, 'removed', 'first');
    assert.equal(seen.health, 'removed');
    assert.match(seen.removed_reason, /401/);
  });

  test("x-ratelimit-remaining-requests: 0 seen by one gateway: the other passes the credential over until the upstream's reset", async () => {
    emu.reset();
    emu.enqueue({ fault: 'status', status: 500, headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '5m' } });
    assert.equal((await ask(0, 'spent')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_FIRST, KEY_SECOND]);
    await written('*{spent}:first:spent');
    emu.reset();
    for (let n = 0; n < 3; n++) assert.equal((await ask(1, 'spent')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SECOND, KEY_SECOND, KEY_SECOND]);
    assert.equal((await credential(1, 'spent', 'first')).remaining_requests, 0, 'the other gateway shows the headroom the upstream left');
  });

  test('a 429 with retry-after on one gateway: the other shows the credential cooling down, until the same time', async () => {
    emu.reset();
    emu.enqueue({
      fault: 'status',
      status: 429,
      headers: { 'retry-after': '120' },
      body: { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    assert.equal((await ask(0, 'cooled')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_FIRST, KEY_SECOND]);
    await written('*{cooled}:first:cool');
    emu.reset();
    assert.equal((await ask(1, 'cooled')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SECOND]);
    const there = await credential(1, 'cooled', 'first');
    const here = await credential(0, 'cooled', 'first');
    assert.equal(there.health, 'cooling_down');
    assert.equal(there.cooling_down_until, here.cooling_down_until);
  });
});
