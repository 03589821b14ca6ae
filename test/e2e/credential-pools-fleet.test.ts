import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Credential pools counted by the fleet: two gateways on one Redis (their ledgers apart)
// share each credential's rpm and tpm budgets and the cool-downs upstreams ask for, so a
// budget of 2 requests a minute is 2 for the fleet, not 2 per gateway. The emulator sees
// which key each request carried; the gateways' clock is one injected clock (no sleeps).

const KEY_SMALL = 'fleet-pool-small-7Hq2Wm4x';
const KEY_SPARE = 'fleet-pool-spare-3Jd8Kp1z';
const skip = redisUnavailable() ?? false;

const model = (id: string, provider: string) => `  - id: acme/${id}
    context_length: 32000
    endpoints:
      - provider: ${provider}
        model: mock-1
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

describe('credential pools across a fleet (two gateways, one Redis)', { skip, timeout: 60_000 }, () => {
  let redis: RedisServer;
  let emu: OpenAIChatEmulator;
  let gateways: TestGateway[];
  let clock = Date.UTC(2026, 3, 6, 10, 0, 0);
  before(async () => {
    redis = await startRedis();
    emu = await startOpenAIChatEmulator();
    const yaml = `sim: false
providers:
  - id: budgeted
    kind: openai
    base_url: "${emu.baseUrl}"
    api_keys:
      - { key: "${KEY_SMALL}", label: small, weight: 1000000, rpm: 2 }
      - { key: "${KEY_SPARE}", label: spare, weight: 0.000001 }
  - id: cooled
    kind: openai
    base_url: "${emu.baseUrl}"
    api_keys:
      - { key: "${KEY_SMALL}", label: first, weight: 1000000 }
      - { key: "${KEY_SPARE}", label: second, weight: 0.000001 }
  - id: tokens
    kind: openai
    base_url: "${emu.baseUrl}"
    api_keys:
      - { key: "${KEY_SMALL}", label: thin, weight: 1000000, tpm: 1 }
      - { key: "${KEY_SPARE}", label: wide, weight: 0.000001 }
models:
${model('budgeted', 'budgeted')}${model('cooled', 'cooled')}${model('tokens', 'tokens')}`;
    const prefix = `sy-pools-${process.pid}`;
    gateways = [
      await startTestGateway({ yaml, now: () => clock, redis: { url: redis.url, prefix, instanceId: 'a' } }),
      await startTestGateway({ yaml, now: () => clock, redis: { url: redis.url, prefix, instanceId: 'b' } }),
    ];
  });
  after(async () => {
    for (const gw of gateways ?? []) await gw.close();
    await emu?.close();
    await redis?.stop();
  });

  const ask = (gw: TestGateway, id: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: `acme/${id}`, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
  const keysSeen = () => emu.requests.map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));

  test('an rpm budget of 2 is 2 for the fleet: the rest of the minute goes to the other credential, from either gateway', async () => {
    emu.reset();
    for (let i = 0; i < 6; i++) {
      const res = await ask(gateways[i % 2]!, 'budgeted');
      assert.equal(res.status, 200, res.text);
    }
    assert.deepEqual(keysSeen(), [KEY_SMALL, KEY_SMALL, KEY_SPARE, KEY_SPARE, KEY_SPARE, KEY_SPARE]);
    // A minute later the budget is whole again, for both.
    clock += 60_001;
    emu.reset();
    assert.equal((await ask(gateways[1]!, 'budgeted')).status, 200);
    assert.equal((await ask(gateways[0]!, 'budgeted')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SMALL, KEY_SMALL]);
  });

  test('a 429 with retry-after on one gateway cools the credential on the other too, for as long as asked', async () => {
    emu.reset();
    emu.enqueue({ fault: 'status', status: 429, headers: { 'retry-after': '30' } });
    const first = await ask(gateways[0]!, 'cooled');
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(keysSeen(), [KEY_SMALL, KEY_SPARE], 'the same request went on with the other credential');
    // The cool-down is written to Redis as the 429 is settled: wait for it, not for time.
    const cool = `sy-pools-${process.pid}:cr:{cooled}:first:cool`;
    while ((await gateways[0]!.services.fleet!.connection.send<string | null>(['GET', cool])) === null) await new Promise(setImmediate);
    emu.reset();
    assert.equal((await ask(gateways[1]!, 'cooled')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SPARE], 'the other gateway rests it too');
    clock += 30_000;
    emu.reset();
    assert.equal((await ask(gateways[1]!, 'cooled')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SMALL], 'and uses it again once the cool-down is over');
  });

  test('a tpm budget counts the tokens answered through every gateway', async () => {
    emu.reset();
    assert.equal((await ask(gateways[0]!, 'tokens')).status, 200);
    const tok = `sy-pools-${process.pid}:cr:{tokens}:thin:tok`;
    while (Object.keys((await gateways[0]!.services.fleet!.connection.send<Record<string, string>>(['HGETALL', tok])) ?? {}).length === 0)
      await new Promise(setImmediate);
    assert.equal((await ask(gateways[1]!, 'tokens')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_SMALL, KEY_SPARE], 'the tokens of the first answer spent the budget of 1 for the fleet');
  });
});
