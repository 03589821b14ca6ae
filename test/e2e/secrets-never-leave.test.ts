import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProviderAdapter } from '../../src/providers/types.ts';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Upstreams that repeat the request's headers in their errors (401, 403, 500, and an error
// inside a 200 answer or stream) must not hand the gateway's upstream keys to the client, in
// any dialect, streamed or not, nor put them in the gateway's stderr.

const KEYS = { openai: 'opk-7Qx9LmN2vB4wZ', anthropic: 'ank-3Hs8PqT6rY1uK', google: 'gok-5Jd2WcV9nE7aF' };

let stderr = '';
const realWrite = process.stderr.write.bind(process.stderr);

describe('upstream credentials never leave the gateway', () => {
  let oa: OpenAIChatEmulator;
  let an: AnthropicEmulator;
  let gm: GeminiEmulator;
  let gw: TestGateway;
  before(async () => {
    process.stderr.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    oa = await startOpenAIChatEmulator();
    an = await startAnthropicEmulator();
    gm = await startGeminiEmulator({ apiKey: KEYS.google });
    const model = (id: string, provider: string) => `  - id: acme/${id}
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: ${provider}
        model: ${id === 'gemini' ? 'gemini-2.5-flash' : 'm'}
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - { id: up-openai, kind: openai, base_url: "${oa.baseUrl}", api_key: "${KEYS.openai}" }
  - { id: up-anthropic, kind: anthropic, base_url: "${an.baseUrl}", api_key: "${KEYS.anthropic}" }
  - { id: up-google, kind: google, base_url: "${gm.baseUrl}", api_key: "${KEYS.google}" }
models:
${model('openai', 'up-openai')}${model('anthropic', 'up-anthropic')}${model('gemini', 'up-google')}`,
    });
  });
  after(async () => {
    process.stderr.write = realWrite;
    await gw.close();
    await Promise.all([oa.close(), an.close(), gm.close()]);
  });

  const emulators = () => ({ openai: oa, anthropic: an, gemini: gm }) as const;
  const ask = (dialect: string, model: string, stream: boolean) => {
    const auth = { authorization: `Bearer ${gw.key}` };
    if (dialect === 'chat')
      return postJson(`${gw.baseUrl}/chat/completions`, { model, stream, messages: [{ role: 'user', content: 'hi' }] }, auth);
    if (dialect === 'messages')
      return postJson(`${gw.baseUrl}/messages`, { model, stream, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }, auth);
    if (dialect === 'gemini') {
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      return postJson(
        `${gw.origin}/v1beta/models/${model}:${method}`,
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        { 'x-goog-api-key': gw.key },
      );
    }
    return postJson(`${gw.baseUrl}/responses`, { model, stream, input: 'hi' }, auth);
  };
  /** The provider's raw answer as the dialect carries it (Gemini's ErrorInfo metadata holds it as JSON text). */
  const rawOf = (dialect: string, json: any): unknown =>
    dialect === 'gemini' ? json.error.details[0].metadata?.raw : json.error.metadata.raw;
  const assertNoKey = (text: string, what: string) => {
    for (const key of Object.values(KEYS)) assert.equal(text.includes(key), false, `${what} leaks ${key}: ${text.slice(0, 600)}`);
  };

  for (const upstream of ['openai', 'anthropic', 'gemini'] as const) {
    for (const status of [401, 403, 500, 200]) {
      test(`${upstream} upstream echoing our headers in ${status === 200 ? 'an error inside its answer' : `a ${status}`}: no key in any dialect, streamed or not`, async () => {
        const emu = emulators()[upstream];
        for (const dialect of ['chat', 'messages', 'responses', 'gemini']) {
          for (const stream of [false, true]) {
            emu.reset();
            // Enough for the same-endpoint retries of a transient failure: the client sees the echo.
            emu.enqueue({ fault: 'echo-headers', status }, { fault: 'echo-headers', status }, { fault: 'echo-headers', status });
            const res = await ask(dialect, `acme/${upstream}`, stream);
            // Each case fails on purpose: keep the endpoint's circuit closed for the next one.
            for (const endpoint of gw.services.inForce.catalog.get(`acme/${upstream}`)!.endpoints)
              gw.services.breakers.onSuccess(endpoint.id);
            const what = `${dialect}${stream ? ' streamed' : ''}`;
            assert.ok(emu.requests.length >= 1, what);
            const sent = JSON.stringify(emu.requests[0]!.headers);
            assert.ok(
              Object.values(KEYS).some((k) => sent.includes(k)),
              'the upstream was sent its key, so the echo holds it',
            );
            assert.match(res.text, /provider_error|PROVIDER_ERROR/, `${what}: an error reached the client: ${res.text.slice(0, 300)}`);
            assertNoKey(res.text, what);
            if (!stream && (status === 401 || status === 403)) {
              assert.equal(rawOf(dialect, res.json), undefined, `${what}: no raw body for a ${status}`);
            }
          }
        }
      });
    }
  }

  test('an internal error says nothing to the client, and its log line holds no key', async () => {
    const planner = gw.services.inForce.planner;
    // Admission drafts the plan (the sticky endpoint, once looked up, finishes it).
    const draft = planner.draft;
    planner.draft = () => {
      throw new Error(`bug while planning with Bearer ${KEYS.openai} and ${KEYS.google}`);
    };
    try {
      const before = stderr.length;
      const res = await ask('chat', 'acme/openai', false);
      assert.equal(res.status, 500);
      assert.deepEqual(res.json.error, { message: 'Internal server error', type: 'internal_error', code: 'internal_error', param: null });
      const logged = stderr.slice(before);
      assert.match(logged, /internal error: Error: bug while planning with Bearer \[REDACTED\] and \[REDACTED\]/);
    } finally {
      planner.draft = draft;
    }
  });

  test('an adapter that throws a plain Error holding a key: the client does not see the key', async () => {
    const adapters = gw.services.adapters as Map<string, ProviderAdapter>;
    const real = adapters.get('openai')!;
    adapters.set('openai', {
      ...real,
      decodeResponse: () => {
        throw new Error(`decoder bug near ${KEYS.openai}`);
      },
    } as ProviderAdapter);
    try {
      oa.reset();
      for (const dialect of ['chat', 'messages', 'responses', 'gemini']) {
        const res = await ask(dialect, 'acme/openai', false);
        assert.equal(res.status, 502, res.text);
        assertNoKey(res.text, dialect);
        gw.services.breakers.onSuccess(gw.services.inForce.catalog.get('acme/openai')!.endpoints[0]!.id);
      }
    } finally {
      adapters.set('openai', real);
    }
  });

  test("the gateway's stderr never held a key", () => {
    assertNoKey(stderr, 'stderr');
  });
});
