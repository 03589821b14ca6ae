import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A provider with several credentials (`api_keys:`): the emulator sees which key each
// request carried. The gateway's clock is injected: cool-downs and minutes pass without sleeps.

const KEY_A = 'pool-key-A-9fQ2xLm7Vb';
const KEY_B = 'pool-key-B-4hT8wZp1Kc';
const KEY_C = 'pool-key-C-6nR3yJd5Ws';

const model = (id: string, upstream: string, provider = 'pooled') => `  - id: acme/${id}
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: ${provider}
        model: ${upstream}
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

function keyOf(headers: Record<string, unknown>): string {
  const auth = String(headers.authorization ?? headers['x-api-key'] ?? '');
  return auth.replace(/^Bearer /, '');
}

describe('credential pools', () => {
  let oa: OpenAIChatEmulator;
  let an: AnthropicEmulator;
  let gw: TestGateway;
  let clock = Date.UTC(2026, 0, 5, 12, 0, 0);
  const log: string[] = [];
  const logLines: string[] = [];
  let stderr = '';
  const realWrite = process.stderr.write.bind(process.stderr);

  before(async () => {
    process.stderr.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    oa = await startOpenAIChatEmulator();
    an = await startAnthropicEmulator();
    gw = await startTestGateway({
      now: () => clock,
      log: (m) => log.push(m),
      logDestination: { write: (line) => logLines.push(line) },
      yaml: `sim: false
providers:
  - id: pooled
    kind: openai
    base_url: "${oa.baseUrl}"
    api_keys:
      - { key: "${KEY_A}", label: team-a, weight: 3 }
      - { key: "${KEY_B}", label: team-b, weight: 1 }
  - id: restricted
    kind: openai
    base_url: "${oa.baseUrl}"
    api_keys:
      - { key: "${KEY_A}", label: only-x, models: ["gpt-x*"] }
      - { key: "${KEY_B}", label: only-y, models: ["gpt-y*"] }
  - id: budgeted
    kind: openai
    base_url: "${oa.baseUrl}"
    api_keys:
      - { key: "${KEY_A}", label: small, weight: 1000000, rpm: 2 }
      - { key: "${KEY_C}", label: spare, weight: 0.000001 }
  - id: mixed
    kind: openai
    base_url: "${oa.baseUrl}"
    api_key: "${KEY_C}"
    api_keys:
      - { key: "${KEY_A}", label: elsewhere, models: ["not-this-one"] }
  - id: claude
    kind: anthropic
    base_url: "${an.baseUrl}"
    api_keys:
      - { key: "${KEY_A}", label: anth-a }
      - { key: "${KEY_B}", label: anth-b }
models:
${model('pooled', 'm')}${model('x', 'gpt-x-1', 'restricted')}${model('y', 'gpt-y-1', 'restricted')}${model('budget', 'm', 'budgeted')}${model('claude', 'claude-m', 'claude')}${model('mixed', 'm', 'mixed')}`,
    });
  });
  after(async () => {
    process.stderr.write = realWrite;
    await gw.close();
    await Promise.all([oa.close(), an.close()]);
  });
  afterEach(() => {
    oa.reset();
    an.reset();
  });

  const ask = (m: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: m, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
  const keysSeen = () => oa.requests.map((r) => keyOf(r.headers as Record<string, unknown>));
  const health = async (provider: string) => {
    const admin = await createAdminKey(gw, `ops-${provider}-${log.length}-${Math.random()}`);
    const res = await call('GET', `${gw.baseUrl}/admin/health`, admin.key);
    assert.equal(res.status, 200);
    return (res.json.data.providers as any[]).find((p) => p.id === provider);
  };

  test('weights spread requests: 3:1 over 200 requests, within ±10 points', async () => {
    for (let i = 0; i < 200; i++) assert.equal((await ask('acme/pooled')).status, 200);
    const seen = keysSeen();
    const a = seen.filter((k) => k === KEY_A).length;
    const b = seen.filter((k) => k === KEY_B).length;
    assert.equal(a + b, 200);
    assert.ok(a / 200 > 0.65 && a / 200 < 0.85, `key A carried ${a} of 200`);
  });

  test('a 429 with retry-after on one credential: the same request succeeds with the other, which carries everything until the cool-down ends', async () => {
    oa.enqueue({ fault: 'status', status: 429, headers: { 'retry-after': '40' } });
    const first = await ask('acme/pooled');
    assert.equal(first.status, 200, first.text);
    const [cooled, other] = keysSeen();
    assert.notEqual(cooled, other);
    await gw.flush();
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${first.json.id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as any;
    const labels = (record.data.attempts as any[]).map((x) => x.credential);
    assert.equal(labels.length, 2);
    assert.deepEqual(new Set(labels), new Set(['team-a', 'team-b']));
    assert.equal(
      log.some((l) => l.includes('cooling down for 40 s')),
      true,
      log.join('\n'),
    );
    // The request log names both credentials of the request's attempts.
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.generation_id === first.json.id);
    assert.deepEqual(new Set(line.attempts.map((x: any) => x.credential)), new Set(['team-a', 'team-b']));
    const cooledLabel = cooled === KEY_A ? 'team-a' : 'team-b';
    const metrics = await (await fetch(`${gw.origin}/metrics`)).text();
    assert.match(
      metrics,
      new RegExp(`switchyard_credential_attempts_total\\{provider="pooled",credential="${cooledLabel}",outcome="provider_error"\\} 1`),
    );
    const h = await health('pooled');
    const c = h.credentials.find((x: any) => x.label === cooledLabel);
    assert.equal(c.health, 'cooling_down');
    assert.equal(c.cooling_down_until, new Date(clock + 40_000).toISOString());
    // The endpoint's circuit is not the credential's.
    assert.equal(h.endpoints[0].circuit, 'closed');
    oa.reset();
    for (let i = 0; i < 20; i++) assert.equal((await ask('acme/pooled')).status, 200);
    assert.equal(keysSeen().includes(cooled!), false, 'the cooled credential was used during its cool-down');
    clock += 41_000;
    oa.reset();
    for (let i = 0; i < 40; i++) assert.equal((await ask('acme/pooled')).status, 200);
    assert.equal(keysSeen().includes(cooled!), true, 'the credential did not come back after its cool-down');
    assert.equal(
      (await health('pooled')).credentials.every((x: any) => x.health === 'ok'),
      true,
    );
  });

  test('a 401 takes the credential out (alerted by label) and the request succeeds with the other in the same attempt loop', async () => {
    an.enqueue({ fault: 'status', status: 401 });
    const res = await postJson(
      `${gw.baseUrl}/messages`,
      { model: 'acme/claude', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    const seen = an.requests.map((r) => keyOf(r.headers as Record<string, unknown>));
    assert.equal(seen.length, 2);
    const removed = seen[0]!;
    assert.notEqual(seen[1], removed);
    const label = removed === KEY_A ? 'anth-a' : 'anth-b';
    assert.equal(
      log.some((l) => l.startsWith('ALERT') && l.includes(`"${label}"`) && l.includes('401')),
      true,
      log.join('\n'),
    );
    clock += 10 * 60_000; // removal is until reload, not a cool-down
    an.reset();
    for (let i = 0; i < 10; i++) {
      assert.equal(
        (
          await postJson(
            `${gw.baseUrl}/messages`,
            { model: 'acme/claude', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
            { authorization: `Bearer ${gw.key}` },
          )
        ).status,
        200,
      );
    }
    assert.equal(
      an.requests.some((r) => keyOf(r.headers as Record<string, unknown>) === removed),
      false,
    );
    const h = await health('claude');
    assert.equal(h.credentials.find((x: any) => x.label === label).health, 'removed');
    // The bad credential is not a bad endpoint: its health saw only successes.
    assert.equal(h.endpoints[0].circuit, 'closed');
    assert.equal(h.endpoints[0].uptime_last_5m, 100, JSON.stringify(h.endpoints[0]));
  });

  test("the upstream's x-ratelimit-remaining-requests: 0 passes the credential over until its reset (streamed requests too)", async () => {
    clock += 10 * 60_000;
    oa.enqueue({ fault: 'status', status: 500, headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20s' } });
    const stream = (m: string) =>
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: m, stream: true, messages: [{ role: 'user', content: 'hi' }] },
        { authorization: `Bearer ${gw.key}` },
      );
    assert.equal((await stream('acme/pooled')).status, 200);
    const spent = keysSeen()[0]!;
    assert.equal(keysSeen().length, 2);
    assert.notEqual(keysSeen()[1], spent);
    const label = spent === KEY_A ? 'team-a' : 'team-b';
    assert.equal((await health('pooled')).credentials.find((x: any) => x.label === label).remaining_requests, 0);
    oa.reset();
    for (let i = 0; i < 12; i++) assert.equal((await stream('acme/pooled')).status, 200);
    assert.equal(keysSeen().includes(spent), false);
    clock += 21_000;
    oa.reset();
    for (let i = 0; i < 40; i++) assert.equal((await stream('acme/pooled')).status, 200);
    assert.equal(keysSeen().includes(spent), true);
  });

  test('model restrictions: each upstream model gets only the credential allowed for it', async () => {
    for (let i = 0; i < 6; i++) {
      assert.equal((await ask('acme/x')).status, 200);
      assert.equal((await ask('acme/y')).status, 200);
    }
    for (const r of oa.requests) assert.equal(keyOf(r.headers as Record<string, unknown>), r.body.model === 'gpt-x-1' ? KEY_A : KEY_B);
  });

  test('api_key beside api_keys is the pool\'s "default" credential', async () => {
    for (let i = 0; i < 4; i++) assert.equal((await ask('acme/mixed')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_C, KEY_C, KEY_C, KEY_C]);
    assert.deepEqual(
      (await health('mixed')).credentials.map((c: any) => c.label),
      ['default', 'elsewhere'],
    );
  });

  test('rpm headroom: a credential at its requests-per-minute budget is passed over until the minute moves on', async () => {
    clock += 2 * 60_000;
    for (let i = 0; i < 4; i++) assert.equal((await ask('acme/budget')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_A, KEY_A, KEY_C, KEY_C]);
    const h = await health('budgeted');
    const small = h.credentials.find((x: any) => x.label === 'small');
    assert.equal(small.remaining_requests, 0);
    assert.equal(small.requests_last_minute, 2);
    clock += 61_000;
    oa.reset();
    assert.equal((await ask('acme/budget')).status, 200);
    assert.deepEqual(keysSeen(), [KEY_A]);
  });

  test('pooled keys never leave: not in the admin API, records, request log, operator log or stderr, even when the upstream echoes them', async () => {
    oa.enqueue(
      { fault: 'echo-headers', status: 500 },
      { fault: 'echo-headers', status: 500 },
      { fault: 'echo-headers', status: 500 },
      { fault: 'echo-headers', status: 500 },
    );
    const res = await ask('acme/pooled');
    await gw.flush();
    const admin = await createAdminKey(gw, 'ops-final');
    const views = [
      res.text,
      JSON.stringify((await call('GET', `${gw.baseUrl}/admin/health`, admin.key)).json),
      JSON.stringify((await call('GET', `${gw.baseUrl}/admin/config`, admin.key)).json),
      await (await fetch(`${gw.origin}/metrics`)).text(),
      log.join('\n'),
      logLines.join('\n'),
      stderr,
    ];
    for (const text of views) {
      for (const key of [KEY_A, KEY_B, KEY_C]) assert.equal(text.includes(key), false, `leaks ${key}: ${text.slice(0, 400)}`);
    }
  });
});
