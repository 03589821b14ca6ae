import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { OtlpReceiver } from '../support/otlp-receiver.ts';

const UPSTREAM_KEY = 'upk-tr4ce-Q8wL2';
const SECOND_MODEL = `  - id: acme/mock-2
    name: Mock Two
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: local
        model: mock-model-2
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

describe('traces (OTLP/HTTP)', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  const receiver = new OtlpReceiver();
  let auth: Record<string, string>;
  before(async () => {
    await receiver.start();
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: emulatorConfig(emu.baseUrl, SECOND_MODEL),
      env: { LOCAL_KEY: UPSTREAM_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'switchyard-test' },
    });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
    await receiver.close();
  });

  test('a server span per request and a client span per upstream attempt, with GenAI attributes and W3C trace context sent upstream', async () => {
    emu.enqueue({ fault: 'status', status: 500 }, { text: 'hello', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', models: ['acme/mock-1', 'acme/mock-2'], messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(r.status, 200, r.text);
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(3);
    const server = receiver.spans.filter((s) => s.kind === 2);
    const clients = receiver.spans.filter((s) => s.kind === 3);
    assert.equal(server.length, 1);
    assert.equal(clients.length, 2);
    const root = server[0]!;
    assert.equal(root.resource['service.name'], 'switchyard-test');
    assert.equal(root.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(root.attributes['gen_ai.request.model'], 'acme/mock-1');
    assert.equal(root.attributes['gen_ai.provider.name'], 'local');
    assert.equal(root.attributes['gen_ai.response.model'], 'mock-model-2');
    assert.equal(root.attributes['gen_ai.usage.input_tokens'], 12);
    assert.equal(root.attributes['gen_ai.usage.output_tokens'], 3);
    assert.deepEqual(root.attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(root.attributes['switchyard.generation_id'], r.headers.get('x-generation-id'));
    assert.equal(root.attributes['error.type'], undefined);
    for (const c of clients) {
      assert.equal(c.traceId, root.traceId);
      assert.equal(c.parentSpanId, root.spanId);
      assert.equal(c.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(c.attributes['gen_ai.provider.name'], 'local');
    }
    const [failed, served] = [
      clients.find((c) => c.attributes['gen_ai.request.model'] === 'mock-model')!,
      clients.find((c) => c.attributes['gen_ai.request.model'] === 'mock-model-2')!,
    ];
    assert.equal(failed.attributes['error.type'], '500');
    assert.equal(failed.attributes['http.response.status_code'], 500);
    assert.equal(served.attributes['http.response.status_code'], 200);
    // The upstream received each attempt's own trace context.
    const sent = emu.requests.map((q) => q.headers.traceparent);
    assert.deepEqual(sent, [`00-${root.traceId}-${failed.spanId}-01`, `00-${root.traceId}-${served.spanId}-01`]);
    assert.ok(!JSON.stringify(receiver.spans).includes(UPSTREAM_KEY));
  });

  test("a caller's traceparent makes the request's span part of the caller's trace", async () => {
    const before = receiver.spans.length;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    emu.enqueue({ text: 'traced' });
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', messages: [{ role: 'user', content: 'hi' }] },
      { ...auth, traceparent: `00-${traceId}-${parentId}-01` },
    );
    assert.equal(r.status, 200, r.text);
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(before + 2);
    const server = receiver.spans.slice(before).find((s) => s.kind === 2)!;
    assert.equal(server.traceId, traceId);
    assert.equal(server.parentSpanId, parentId);
    assert.equal(emu.requests.at(-1)!.headers.traceparent?.slice(0, 36), `00-${traceId}-`);
  });

  test("a Gemini request with its key in the query string: spans like chat's, and no key in any span", async () => {
    const before = receiver.spans.length;
    emu.enqueue({ text: 'gemini traced', usage: { prompt_tokens: 4, completion_tokens: 2 } });
    const r = await postJson(`${gw.origin}/v1beta/models/acme/mock-1:streamGenerateContent?alt=sse&key=${gw.key}`, {
      contents: [{ parts: [{ text: 'hi' }] }],
    });
    assert.equal(r.status, 200, r.text);
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(before + 2);
    const mine = receiver.spans.slice(before);
    const server = mine.find((s) => s.kind === 2)!;
    assert.equal(server.attributes['gen_ai.request.model'], 'acme/mock-1');
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], 2);
    assert.equal(server.attributes['switchyard.generation_id'], r.headers.get('x-generation-id'));
    const exported = JSON.stringify(mine);
    assert.equal(exported.includes(gw.key), false, 'the key is in no span');
    assert.equal(exported.includes('key='), false, 'no URL with its query is in any span');
  });

  test('a refused request gets a server span with error.type', async () => {
    const before = receiver.spans.length;
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'nobody/nothing', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(r.status, 400);
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(before + 1);
    const span = receiver.spans[before]!;
    assert.equal(span.kind, 2);
    assert.equal(span.attributes['error.type'], 'model_not_found');
    assert.equal(span.status.code, 2, 'status ERROR');
  });
});

describe('traces off by default', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  test('without OTEL_EXPORTER_OTLP_ENDPOINT there is no tracer', () => {
    assert.equal(gw.services.telemetry.tracing, null);
  });
});
