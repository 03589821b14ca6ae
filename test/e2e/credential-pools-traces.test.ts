import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { OtlpReceiver } from '../support/otlp-receiver.ts';

// Each upstream attempt's client span names the pooled credential it carried, never its key.

const KEY_A = 'trace-pool-A-2mX8qR';
const KEY_B = 'trace-pool-B-7kW3tN';

describe('credential pools in traces', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  const receiver = new OtlpReceiver();
  before(async () => {
    await receiver.start();
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: pooled
    kind: openai
    base_url: "${emu.baseUrl}"
    api_keys:
      - { key: "${KEY_A}", label: first }
      - { key: "${KEY_B}", label: second }
models:
  - id: acme/pooled
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: pooled
        model: m
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'switchyard-test' },
    });
  });
  after(async () => {
    await gw.close();
    await emu.close();
    await receiver.close();
  });

  test('a 429 then a success: two client spans, each with its credential label', async () => {
    emu.enqueue({ fault: 'status', status: 429, headers: { 'retry-after': '5' } });
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/pooled', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(r.status, 200, r.text);
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(3);
    const clients = receiver.spans.filter((s) => s.kind === 3);
    assert.equal(clients.length, 2);
    const keyLabel = (k: unknown) => (String(k).includes(KEY_A) ? 'first' : 'second');
    const sent = emu.requests.map((q) => keyLabel(q.headers.authorization));
    assert.deepEqual(
      clients.map((c) => c.attributes['switchyard.credential']),
      sent,
    );
    assert.equal(clients[0]!.attributes['http.response.status_code'], 429);
    const all = JSON.stringify(receiver.spans);
    assert.equal(all.includes(KEY_A) || all.includes(KEY_B), false);
  });
});
