import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { parsePrometheus, scrape, sumOf } from '../support/prometheus-text.ts';

const SECOND_MODEL = `  - id: acme/mock-2
    name: Mock Two
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: local
        model: mock-model-2
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hello there' }],
  ...extra,
});

describe('GET /metrics', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl, SECOND_MODEL), env: { LOCAL_KEY: 'upstream-key' } });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('counts requests by route, model, provider and status class, with latency, TTFT, tokens and cost', async () => {
    emu.enqueue({ text: 'one two three', usage: { prompt_tokens: 11, completion_tokens: 3 } });
    const ok = await postJson(`${gw.baseUrl}/chat/completions`, ask('acme/mock-1'), auth);
    assert.equal(ok.status, 200, ok.text);
    emu.enqueue({ text: 'streamed answer', usage: { prompt_tokens: 7, completion_tokens: 2 } });
    const streamed = await postJson(
      `${gw.baseUrl}/chat/completions`,
      ask('acme/mock-1', { stream: true, stream_options: { include_usage: true } }),
      auth,
    );
    assert.equal(streamed.status, 200, streamed.text);
    const m = await scrape(gw.origin);
    const labels = { route: 'chat', model: 'acme/mock-1', provider: 'local' };
    assert.equal(sumOf(m, 'switchyard_requests_total', { ...labels, status_class: '2xx' }), 2);
    assert.equal(sumOf(m, 'switchyard_request_duration_seconds_count', labels), 2);
    assert.equal(sumOf(m, 'switchyard_time_to_first_token_seconds_count', labels), 2);
    assert.equal(sumOf(m, 'switchyard_gateway_overhead_seconds_count', { route: 'chat' }), 2);
    assert.equal(sumOf(m, 'switchyard_upstream_duration_seconds_count', { provider: 'local' }), 2);
    assert.equal(sumOf(m, 'switchyard_upstream_attempts_total', { provider: 'local', outcome: 'ok' }), 2);
    assert.equal(sumOf(m, 'switchyard_tokens_total', { model: 'acme/mock-1', type: 'prompt' }), 18);
    assert.equal(sumOf(m, 'switchyard_tokens_total', { model: 'acme/mock-1', type: 'completion' }), 5);
    // 18 prompt tokens at $1/M and 5 completion tokens at $2/M: 28,000 nano-USD.
    assert.equal(sumOf(m, 'switchyard_cost_nanousd_total', { model: 'acme/mock-1', provider: 'local' }), 28_000);
    assert.equal(sumOf(m, 'switchyard_credit_holds_outstanding'), 0);
    assert.equal(sumOf(m, 'switchyard_settlement_queue_depth'), 0);
    assert.equal(sumOf(m, 'switchyard_settlement_failing'), 0);
    // The running version and build, as /ready reports them.
    const ready = (await (await fetch(`${gw.origin}/ready`)).json()) as { version: string; build: string };
    assert.equal(sumOf(m, 'switchyard_build_info', { version: ready.version, build: ready.build }), 1);
    // Default metrics: event-loop delay and GC.
    assert.ok(m.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds'));
    assert.ok(m.some((s) => s.name.startsWith('nodejs_gc_duration_seconds')));
  });

  test('a model name the catalog does not know is counted as "unknown": no client string becomes a label', async () => {
    const r = await postJson(`${gw.baseUrl}/chat/completions`, ask('someone/made-up-model-4711'), auth);
    assert.equal(r.status, 400, r.text);
    const res = await fetch(`${gw.origin}/metrics`);
    const text = await res.text();
    assert.ok(!text.includes('made-up-model-4711'), 'the client string is no label');
    const m = parsePrometheus(text);
    assert.equal(sumOf(m, 'switchyard_requests_total', { route: 'chat', model: 'unknown', provider: 'none', status_class: '4xx' }), 1);
    assert.ok(!text.includes(gw.keyHash) && !text.includes(gw.key) && !text.includes(gw.accountId), 'no key or account ids as labels');
  });

  test('counts every HTTP answer by method, route pattern and status class: authentication failures and unknown paths too', async () => {
    const before = await scrape(gw.origin);
    const unauthorized = await postJson(`${gw.baseUrl}/chat/completions`, ask('acme/mock-1'), { authorization: 'Bearer sk-sy-v1-nope' });
    assert.equal(unauthorized.status, 401);
    assert.equal((await fetch(`${gw.origin}/v1/secret-path-0815`)).status, 404);
    const res = await fetch(`${gw.origin}/metrics`);
    const text = await res.text();
    assert.ok(!text.includes('secret-path-0815') && !text.includes('sk-sy-v1-nope'));
    const m = parsePrometheus(text);
    const chat = { method: 'POST', route: '/v1/chat/completions', status_class: '4xx' };
    assert.equal(sumOf(m, 'switchyard_http_requests_total', chat) - sumOf(before, 'switchyard_http_requests_total', chat), 1);
    const unmatched = { method: 'GET', route: 'unmatched', status_class: '4xx' };
    assert.equal(sumOf(m, 'switchyard_http_requests_total', unmatched) - sumOf(before, 'switchyard_http_requests_total', unmatched), 1);
  });

  test('fallbacks and their reasons, attempt outcomes, and a tripped circuit (state per endpoint)', async () => {
    const before = await scrape(gw.origin);
    for (let i = 0; i < 5; i++) {
      emu.enqueue({ fault: 'status', status: 500 }, { text: 'from the fallback' });
      const r = await postJson(`${gw.baseUrl}/chat/completions`, { ...ask('acme/mock-1'), models: ['acme/mock-1', 'acme/mock-2'] }, auth);
      assert.equal(r.status, 200, r.text);
    }
    const m = await scrape(gw.origin);
    const failed = m.filter((s) => s.name === 'switchyard_upstream_attempts_total' && s.labels.outcome !== 'ok');
    assert.equal(
      failed.reduce((n, s) => n + s.value, 0) -
        sumOf(before, 'switchyard_upstream_attempts_total') +
        sumOf(before, 'switchyard_upstream_attempts_total', { outcome: 'ok' }),
      5,
    );
    const reason = failed[0]!.labels.outcome!;
    assert.equal(sumOf(m, 'switchyard_fallbacks_total', { reason }), 5);
    assert.equal(sumOf(m, 'switchyard_requests_total', { model: 'acme/mock-2', status_class: '2xx' }), 5);
    // Five consecutive failures open the endpoint's circuit.
    const endpoint = failed[0]!.labels.endpoint!;
    assert.equal(sumOf(m, 'switchyard_circuit_opened_total', { endpoint }), 1);
    assert.equal(sumOf(m, 'switchyard_circuit_state', { endpoint }), 2);
    const others = m.filter((s) => s.name === 'switchyard_circuit_state' && s.labels.endpoint !== endpoint);
    assert.ok(others.length > 0 && others.every((s) => s.value === 0), 'the other endpoints are closed');
  });
});

describe('GET /metrics with a token, and rate-limit refusals', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}tiers:\n  tier2:\n    requests_per_minute: 1\nmetrics:\n  token: \${METRICS_TOKEN}\n`,
      env: { METRICS_TOKEN: 'scrape-secret' },
    });
  });
  after(() => gw.close());

  test('refuses a scrape without the bearer token (401) and serves one with it', async () => {
    assert.equal((await fetch(`${gw.origin}/metrics`)).status, 401);
    assert.equal((await fetch(`${gw.origin}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const ok = await fetch(`${gw.origin}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type')!, /^text\/plain/);
  });

  test('counts rate-limit refusals', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-fast'), auth)).status, 200);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-fast'), auth)).status, 429);
    const m = await scrape(gw.origin, { authorization: 'Bearer scrape-secret' });
    assert.equal(sumOf(m, 'switchyard_rate_limit_refusals_total', { scope: 'request' }), 1);
    assert.equal(sumOf(m, 'switchyard_requests_total', { model: 'switchyard/sim-fast', status_class: '4xx' }), 1);
  });
});

describe('metrics.enabled: false', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}metrics:\n  enabled: false\n` });
  });
  after(() => gw.close());

  test('serves no /metrics route', async () => {
    assert.equal((await fetch(`${gw.origin}/metrics`)).status, 404);
  });
});
