import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Per-model rate limits and fallback models: the primary model is counted at admission;
// a fallback model when its first attempt starts, against its own limit. A model whose
// limit is spent is skipped for the next one; with none left the answer is a 429.

function yaml(a: string, b: string): string {
  const model = (id: string, provider: string) => `  - id: acme/${id}
    context_length: 32000
    endpoints:
      - { provider: ${provider}, model: ${id}-up, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;
  return `sim: false
providers:
  - { id: up-a, kind: openai, base_url: "${a}" }
  - { id: up-b, kind: openai, base_url: "${b}" }
models:
${model('a', 'up-a')}${model('b', 'up-b')}
tiers:
  tier2:
    requests_per_minute: 100
    model_limits:
      acme/a: { requests_per_minute: 1 }
      acme/b: { requests_per_minute: 1 }
`;
}

const hi = [{ role: 'user', content: 'hi' }];

describe('rate limits of fallback models', () => {
  let a: OpenAIChatEmulator;
  let b: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    [a, b] = await Promise.all([startOpenAIChatEmulator(), startOpenAIChatEmulator()]);
    gw = await startTestGateway({ yaml: yaml(a.baseUrl, b.baseUrl) });
  });
  after(async () => {
    await gw.close();
    await Promise.all([a.close(), b.close()]);
  });

  /** A key of its own per test: each starts with full buckets. */
  async function freshKey(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${(await gw.services.accountService.createKey({ accountId: gw.accountId })).key}` };
  }
  const chat = (body: Record<string, unknown>, auth: Record<string, string>) =>
    postJson(`${gw.baseUrl}/chat/completions`, { messages: hi, ...body }, auth);

  test("a request served by a fallback counts against the fallback's own limit", async () => {
    const auth = await freshKey();
    a.enqueue({ fault: 'status', status: 500 });
    const served = await chat({ model: 'acme/a', models: ['acme/b'] }, auth);
    assert.equal(served.status, 200, served.text);
    assert.equal(served.json.model, 'acme/b');
    const direct = await chat({ model: 'acme/b' }, auth);
    assert.equal(direct.status, 429, 'acme/b allows one request a minute, and the fallback used it');
    assert.equal(direct.json.error.type, 'rate_limit_error');
  });

  test('a fallback whose limit is spent is not called: the request gets its 429, after the attempts made', async () => {
    const auth = await freshKey();
    assert.equal((await chat({ model: 'acme/b' }, auth)).status, 200);
    const before = b.requests.length;
    a.enqueue({ fault: 'status', status: 500 });
    const res = await chat({ model: 'acme/a', models: ['acme/b'] }, auth);
    assert.equal(res.status, 429);
    assert.equal(res.json.error.code, 'rate_limited');
    assert.equal(res.json.error.metadata.model, 'acme/b');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    assert.deepEqual(
      res.json.error.metadata.attempts.map((x: any) => [x.model, x.status]),
      [['acme/a', 500]],
    );
    assert.equal(b.requests.length, before, 'nothing was sent to acme/b');
  });

  test('a primary model whose own limit is spent falls over to the fallback, which is counted', async () => {
    const auth = await freshKey();
    assert.equal((await chat({ model: 'acme/a' }, auth)).status, 200);
    const aBefore = a.requests.length;
    const res = await chat({ model: 'acme/a', models: ['acme/b'] }, auth);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/b');
    assert.equal(a.requests.length, aBefore, 'acme/a was not called past its limit');
    assert.equal((await chat({ model: 'acme/a', models: ['acme/b'] }, auth)).status, 429, 'both spent now');
  });

  test('a primary whose limit is spent, alone in its plan, is refused at once as before', async () => {
    const auth = await freshKey();
    assert.equal((await chat({ model: 'acme/a' }, auth)).status, 200);
    const res = await chat({ model: 'acme/a' }, auth);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
  });
});
