import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../support/free-port.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An upstream the gateway cannot reach (a closed loopback port): the client learns which
// provider and why (`connection refused`), in every dialect, streamed or not, but not the
// operator's network (no address, no port). The operator's request log keeps the system
// error's text whole.

describe('a transport error tells the client the provider and a reason, not the address', () => {
  let gw: TestGateway;
  let port: number;
  const logLines: string[] = [];
  before(async () => {
    port = await freePort(); // closed again: connecting is refused
    gw = await startTestGateway({
      yaml: emulatorConfig(`http://127.0.0.1:${port}/v1`),
      env: { LOCAL_KEY: 'local-key-0123456789' },
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
  });
  after(() => gw.close());

  const ask = (dialect: string, stream: boolean) => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const model = 'acme/mock-1';
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

  for (const dialect of ['chat', 'messages', 'responses', 'gemini']) {
    for (const stream of [false, true]) {
      test(`${dialect}${stream ? ', streamed' : ''}: 502 naming the provider and "connection refused", no 127.0.0.1, no port`, async () => {
        const res = await ask(dialect, stream);
        // Each case fails on purpose: keep the endpoint's circuit closed for the next one.
        for (const endpoint of gw.services.inForce.catalog.get('acme/mock-1')!.endpoints) gw.services.breakers.onSuccess(endpoint.id);
        assert.equal(res.status, 502, res.text);
        assert.equal(res.text.includes('127.0.0.1'), false, res.text);
        assert.equal(res.text.includes(String(port)), false, res.text);
        assert.doesNotMatch(res.text, /ECONNREFUSED|connect /, res.text);
        const error = res.json.error;
        assert.match(error.message, /\blocal\b.*connection refused/);
        // Google's shape carries the gateway's code and metadata in its ErrorInfo.
        const { code, metadata } =
          dialect === 'gemini' ? { code: error.details[0].reason.toLowerCase(), metadata: error.details[0].metadata } : error;
        assert.equal(code, 'provider_error');
        assert.equal(metadata.provider_name, 'local');
        assert.equal(metadata.reason, 'connection refused');
      });
    }
  }

  test("the operator's request log keeps the system error whole", () => {
    const failed = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request' && l.error === 'provider_error');
    assert.ok(failed.length >= 6, `${failed.length} failed requests logged`);
    for (const line of failed) assert.match(String(line.error_detail), new RegExp(`ECONNREFUSED.*127\\.0\\.0\\.1:${port}`));
  });
});

describe('a connection cut while the answer streams: the in-stream error names the provider and the reason', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'local-key-0123456789' } });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('chat, streamed: "connection reset", no address', async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 });
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200);
    const last = (sseData(res.text) as any[]).at(-1);
    assert.equal(last.error.code, 'provider_error');
    assert.equal(last.error.metadata.reason, 'connection reset');
    assert.match(last.error.message, /\blocal\b.*connection reset/);
    assert.equal(res.text.includes('127.0.0.1'), false, res.text);
    assert.equal(res.text.includes(new URL(emu.baseUrl).port), false, res.text);
  });
});
