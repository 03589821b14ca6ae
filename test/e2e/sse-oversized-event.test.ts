import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SSE_EVENT_CHARS } from '../../src/providers/sse/parse-sse.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An upstream stream with one event over the parser's cap: that request fails (502 before
// the answer began, an in-stream error after), its upstream connection is dropped, and a
// request running beside it on the same gateway is served.

const OVER = MAX_SSE_EVENT_CHARS + 1024 * 1024;

function yaml(huge: string, fine: string): string {
  const provider = (id: string, url: string) => `  - id: ${id}\n    kind: openai\n    base_url: ${url}\n    api_key: k-${id}-0000\n`;
  const model = (id: string, p: string) => `  - id: acme/${id}
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: ${p}
        model: m
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;
  return `sim: false\nproviders:\n${provider('huge', huge)}${provider('fine', fine)}models:\n${model('huge', 'huge')}${model('fine', 'fine')}`;
}

describe('an over-long upstream SSE event', () => {
  let huge: OpenAIChatEmulator;
  let fine: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    huge = await startOpenAIChatEmulator();
    fine = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: yaml(huge.baseUrl, fine.baseUrl) });
  });
  after(async () => {
    await gw.close();
    await huge.close();
    await fine.close();
  });

  const ask = (model: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );

  test('before the answer began: 502 provider_error naming the cap, the upstream connection dropped, a concurrent request served', async () => {
    huge.reset();
    huge.enqueue({ fault: 'oversized-event', chars: OVER });
    const [bad, good] = await Promise.all([ask('acme/huge'), ask('acme/fine')]);
    assert.equal(bad.status, 502, bad.text.slice(0, 300));
    assert.equal(bad.json.error.code, 'provider_error');
    assert.match(bad.json.error.message, new RegExp(`larger than ${MAX_SSE_EVENT_CHARS} characters`));
    assert.equal(huge.requests.length, 1, 'the same endpoint is not asked again');
    await huge.whenClosedEarly(1);
    assert.equal(good.status, 200);
    assert.match(good.text, /"content":"Hello "/);
  });

  test('after the answer began: an in-stream error, and a concurrent request served', async () => {
    huge.reset();
    huge.enqueue({ fault: 'oversized-event', chars: OVER, afterChunks: 2 });
    const [bad, good] = await Promise.all([ask('acme/huge'), ask('acme/fine')]);
    assert.equal(bad.status, 200);
    const events = sseData(bad.text) as Array<{ error?: { code: string; message: string } }>;
    const error = events.find((e) => typeof e === 'object' && e.error !== undefined)?.error;
    assert.ok(error, bad.text.slice(0, 500));
    assert.equal(error.code, 'provider_error');
    assert.match(error.message, /larger than/);
    await huge.whenClosedEarly(1);
    assert.equal(good.status, 200);
  });
});
