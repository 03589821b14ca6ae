import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { scrape, sumOf } from '../support/prometheus-text.ts';
import { OtlpReceiver } from '../support/otlp-receiver.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startOpenAITasksEmulator, type OpenAITasksEmulator } from '../emulators/openai-tasks-emulator.ts';

// Embeddings where an operator looks: metrics labelled by route `embeddings`, trace spans
// whose operation is `embeddings` (the OpenTelemetry GenAI conventions' name), and the usage
// aggregates grouped by kind. The upstream takes two inputs a call, so one request of five
// inputs is three client spans under one server span, and one record.

describe('embeddings in metrics, traces and usage by kind', () => {
  let gw: TestGateway;
  let upstream: OpenAITasksEmulator;
  const receiver = new OtlpReceiver();
  let admin: string;
  let manager: string;
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${gw.key}` });

  before(async () => {
    await receiver.start();
    upstream = await startOpenAITasksEmulator();
    gw = await startTestGateway({
      credits: '100',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      yaml: `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: vendor
    kind: openai
    base_url: ${upstream.baseUrl}
    api_key: sk-upstream
    options: { max_embedding_inputs: 2 }
models:
  - id: acme/embed
    kind: embedding
    context_length: 8192
    endpoints:
      - { provider: vendor, model: vendor-embed, pricing: { prompt: "0.000001", completion: "0" } }
  - id: acme/chat
    context_length: 8192
    endpoints:
      - { provider: sim, model: sim-pro, pricing: { prompt: "0.000001", completion: "0.000002" } }
`,
    });
    admin = (await createAdminKey(gw)).key;
    manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    const embedded = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/embed', input: ['aaaa', 'bbbbbbbb', 'c', 'dd', 'eee'] },
      auth(),
    );
    assert.equal(embedded.status, 200, embedded.text);
    const chatted = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/chat', messages: [{ role: 'user', content: 'hello' }] },
      auth(),
    );
    assert.equal(chatted.status, 200, chatted.text);
    await gw.flush();
  });
  after(async () => {
    await gw?.close();
    await upstream?.close();
    await receiver.close();
  });

  test('metrics: the request counted under route embeddings, with its model, tokens and cost', async () => {
    const m = await scrape(gw.origin);
    const labels = { route: 'embeddings', model: 'acme/embed', provider: 'vendor' };
    assert.equal(sumOf(m, 'switchyard_requests_total', { ...labels, status_class: '2xx' }), 1);
    assert.equal(sumOf(m, 'switchyard_request_duration_seconds_count', labels), 1);
    assert.equal(sumOf(m, 'switchyard_gateway_overhead_seconds_count', { route: 'embeddings' }), 1);
    // Three upstream calls (2 + 2 + 1 inputs) are one attempt of the request.
    assert.equal(sumOf(m, 'switchyard_upstream_attempts_total', { provider: 'vendor', outcome: 'ok' }), 1);
    // ceil(len/4) per input: 1 + 2 + 1 + 1 + 1.
    assert.equal(sumOf(m, 'switchyard_tokens_total', { model: 'acme/embed', type: 'prompt' }), 6);
    assert.equal(sumOf(m, 'switchyard_cost_nanousd_total', { model: 'acme/embed', provider: 'vendor' }), 6_000);
    assert.equal(sumOf(m, 'switchyard_requests_total', { route: 'chat', model: 'acme/chat' }), 1);
  });

  test("traces: the server span's operation is embeddings (route embeddings), one client span per upstream call", async () => {
    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(5);
    const server = receiver.spans.filter((s) => s.kind === 2 && s.attributes['gen_ai.request.model'] === 'acme/embed');
    assert.equal(server.length, 1);
    const root = server[0]!;
    assert.equal(root.name, 'embeddings acme/embed');
    assert.equal(root.attributes['gen_ai.operation.name'], 'embeddings');
    assert.equal(root.attributes['switchyard.route'], 'embeddings');
    assert.equal(root.attributes['gen_ai.usage.input_tokens'], 6);
    const clients = receiver.spans.filter((s) => s.kind === 3 && s.parentSpanId === root.spanId);
    assert.equal(clients.length, 3);
    for (const c of clients) {
      assert.equal(c.name, 'embeddings vendor-embed');
      assert.equal(c.attributes['gen_ai.operation.name'], 'embeddings');
    }
    const chat = receiver.spans.find((s) => s.kind === 2 && s.attributes['gen_ai.request.model'] === 'acme/chat')!;
    assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(chat.attributes['switchyard.route'], 'chat');
  });

  for (const [name, path, key] of [
    ['GET /admin/usage', '/api/v1/admin/usage', () => admin],
    ['GET /usage', '/api/v1/usage', () => manager],
  ] as const) {
    test(`${name}?group_by=kind: embedding and chat apart, highest cost first, pages by cursor`, async () => {
      const res = await call('GET', `${gw.origin}${path}?group_by=kind`, key());
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.group_by, 'kind');
      const byKind = Object.fromEntries(res.json.data.map((r: { group: string }) => [r.group, r]));
      assert.deepEqual(Object.keys(byKind).sort(), ['chat', 'embedding']);
      assert.equal(byKind.embedding.requests, 1);
      assert.equal(byKind.embedding.tokens_prompt, 6);
      assert.equal(byKind.embedding.cost_usd, '0.000006');
      assert.equal(byKind.chat.requests, 1);
      assert.ok(res.json.data[0].cost >= res.json.data[1].cost);
      assert.equal(res.json.totals.requests, 2);
      // One group a page: the cursor leads to the other, then to none.
      const first = await call('GET', `${gw.origin}${path}?group_by=kind&limit=1`, key());
      assert.equal(first.json.data.length, 1);
      const second = await call(
        'GET',
        `${gw.origin}${path}?group_by=kind&limit=1&cursor=${encodeURIComponent(first.json.next_cursor)}`,
        key(),
      );
      assert.equal(second.status, 200, JSON.stringify(second.json));
      assert.deepEqual(
        [first.json.data[0].group, second.json.data[0].group],
        res.json.data.map((r: { group: string }) => r.group),
      );
      assert.equal(second.json.next_cursor, null);
    });
  }

  test('an unknown group_by names the known ones, kind among them', async () => {
    const res = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=flavour`, admin);
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /kind/);
  });
});
