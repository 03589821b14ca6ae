// The gateway's own time per request (docs/operations.md#gateway-overhead): the histogram
// switchyard_gateway_overhead_seconds (route and streamed labels, one observation per
// admitted request that was answered) and the opt-in X-Switchyard-Overhead-Ms header. The
// checks on its value are relations to what the client measures and to the upstream's
// known delay, never a bound on the gateway's speed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { scrape, sumOf, type Sample } from '../support/prometheus-text.ts';

const HISTOGRAM = 'switchyard_gateway_overhead_seconds';
/** How long the slow upstream holds its answer: the gateway waits at least this long on it. */
const UPSTREAM_DELAY_MS = 250;

const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'acme/mock-1',
  messages: [{ role: 'user', content: 'hello there' }],
  ...extra,
});
const streamed = ask({ stream: true, stream_options: { include_usage: true } });

function delta(before: Sample[], now: Sample[], name: string, labels: Record<string, string> = {}): number {
  return sumOf(now, name, labels) - sumOf(before, name, labels);
}

/** POSTs and reads the whole answer; `ms` is the client's send → last byte. */
async function timedPost(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string; ms: number }> {
  const t0 = performance.now();
  const r = await postJson(url, body, headers);
  return { status: r.status, headers: r.headers, text: r.text, ms: performance.now() - t0 };
}

describe('switchyard_gateway_overhead_seconds', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-key' } });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('one observation per answered request, by route and streamed; refusals at admission are not observed; no header unless asked', async () => {
    const m0 = await scrape(gw.origin);
    const chat = await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.headers.get('x-switchyard-overhead-ms'), null, 'the header is opt-in');
    const chatStream = await postJson(`${gw.baseUrl}/chat/completions`, streamed, auth);
    assert.equal(chatStream.status, 200, chatStream.text);
    const messages = await postJson(
      `${gw.baseUrl}/messages`,
      { model: 'acme/mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
    );
    assert.equal(messages.status, 200, messages.text);
    // An upstream's refusal after admission is answered too: observed.
    emu.enqueue({ fault: 'status', status: 400 });
    const refusedUpstream = await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(refusedUpstream.status, 400, refusedUpstream.text);
    // Refused at admission (an unknown model): never reaches execution, not observed.
    const unknown = await postJson(`${gw.baseUrl}/chat/completions`, ask({ model: 'someone/no-such-model' }), auth);
    assert.equal(unknown.status, 400, unknown.text);

    const m1 = await scrape(gw.origin);
    const count = `${HISTOGRAM}_count`;
    assert.equal(delta(m0, m1, count, { route: 'chat', streamed: 'false' }), 2);
    assert.equal(delta(m0, m1, count, { route: 'chat', streamed: 'true' }), 1);
    assert.equal(delta(m0, m1, count, { route: 'messages', streamed: 'false' }), 1);
    assert.equal(delta(m0, m1, count), 4, 'one observation per answered request, no other');
    const labelNames = new Set(m1.filter((s) => s.name === count).flatMap((s) => Object.keys(s.labels)));
    assert.deepEqual([...labelNames].sort(), ['route', 'streamed'], 'bounded labels only');
    // The gateway did some work of its own for each (a positive sum), in the 50 µs – 50 ms buckets' range.
    assert.ok(delta(m0, m1, `${HISTOGRAM}_sum`) > 0);
    assert.ok(
      m1.some((s) => s.name === `${HISTOGRAM}_bucket` && s.labels.le === '0.00005'),
      'a 50 µs bucket',
    );
    assert.ok(
      m1.some((s) => s.name === `${HISTOGRAM}_bucket` && s.labels.le === '0.05'),
      'a 50 ms bucket',
    );
  });

  test("the time spent waiting on the upstream is not the gateway's: an upstream holding its answer 250 ms", async () => {
    const m0 = await scrape(gw.origin);
    emu.enqueue({ fault: 'slow-first-byte', delayMs: UPSTREAM_DELAY_MS });
    const r = await timedPost(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(r.status, 200, r.text);
    assert.ok(r.ms >= UPSTREAM_DELAY_MS, `the client waited the upstream's delay (${r.ms} ms)`);
    const m1 = await scrape(gw.origin);
    const labels = { route: 'chat', streamed: 'false' };
    assert.equal(delta(m0, m1, `${HISTOGRAM}_count`, labels), 1);
    const ownMs = delta(m0, m1, `${HISTOGRAM}_sum`, labels) * 1000;
    // The gateway's time is the client's latency less a wait of at least 250 ms.
    assert.ok(ownMs > 0 && ownMs <= r.ms - UPSTREAM_DELAY_MS, `own ${ownMs} ms, total ${r.ms} ms`);
  });

  test("a stream: its own time runs to the first byte, so neither the wait for the upstream's first byte nor the rest of the stream is in it", async () => {
    const m0 = await scrape(gw.origin);
    // 250 ms before the upstream's first byte, then the answer's first words; the rest is held until the client has them.
    const rest = gate();
    emu.enqueue({
      fault: 'slow-first-byte',
      delayMs: UPSTREAM_DELAY_MS,
      then: { text: 'one two three four', chunks: 4, pauseAfter: { events: 2, until: rest.until } },
    });
    const t0 = performance.now();
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(streamed),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-switchyard-overhead-ms'), null);
    const reader = res.body!.getReader();
    const first = await reader.read();
    const firstByteMs = performance.now() - t0;
    assert.match(new TextDecoder().decode(first.value), /data: /);
    rest.open();
    while (!(await reader.read()).done) {
      /* to the end */
    }
    const m1 = await scrape(gw.origin);
    const labels = { route: 'chat', streamed: 'true' };
    assert.equal(delta(m0, m1, `${HISTOGRAM}_count`, labels), 1);
    const ownMs = delta(m0, m1, `${HISTOGRAM}_sum`, labels) * 1000;
    assert.ok(ownMs > 0 && ownMs <= firstByteMs - UPSTREAM_DELAY_MS, `own ${ownMs} ms, first byte at ${firstByteMs} ms`);
  });
});

describe('X-Switchyard-Overhead-Ms (metrics.overhead_header: true)', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let bare: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: `${emulatorConfig(emu.baseUrl)}metrics:\n  overhead_header: true\n`,
      env: { LOCAL_KEY: 'upstream-key' },
    });
    // Metrics off: the header still has its clock.
    bare = await startTestGateway({
      yaml: `${emulatorConfig(emu.baseUrl)}metrics:\n  enabled: false\n  overhead_header: true\n`,
      env: { LOCAL_KEY: 'upstream-key' },
    });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await bare.close();
    await emu.close();
  });

  const overheadOf = (headers: Headers): number => {
    const value = headers.get('x-switchyard-overhead-ms');
    assert.ok(value !== null, 'the header is there');
    assert.match(value, /^\d+\.\d{3}$/, 'milliseconds with 3 decimals');
    return Number(value);
  };

  test("a non-streamed answer carries the figure the histogram observes: positive, below the latency, without the upstream's wait", async () => {
    const m0 = await scrape(gw.origin);
    emu.enqueue({ fault: 'slow-first-byte', delayMs: UPSTREAM_DELAY_MS });
    const r = await timedPost(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(r.status, 200, r.text);
    const ms = overheadOf(r.headers);
    assert.ok(ms > 0 && ms <= r.ms - UPSTREAM_DELAY_MS, `header ${ms} ms, total ${r.ms} ms`);
    const m1 = await scrape(gw.origin);
    const observed = delta(m0, m1, `${HISTOGRAM}_sum`, { route: 'chat', streamed: 'false' }) * 1000;
    assert.ok(Math.abs(observed - ms) <= 0.0005 + 1e-9, `the histogram observed ${observed} ms, the header says ${ms}`);
  });

  test('an error after admission carries it too; a refusal at admission and a stream do not', async () => {
    emu.enqueue({ fault: 'status', status: 400 });
    const failed = await timedPost(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(failed.status, 400, failed.text);
    const ms = overheadOf(failed.headers);
    assert.ok(ms > 0 && ms < failed.ms);
    const refused = await postJson(`${gw.baseUrl}/chat/completions`, ask({ model: 'someone/no-such-model' }), auth);
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('x-switchyard-overhead-ms'), null);
    const stream = await postJson(`${gw.baseUrl}/chat/completions`, streamed, auth);
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('x-switchyard-overhead-ms'), null, "a stream's headers leave before its figure is known");
  });

  test("with metrics off, the header is still measured from the request's arrival", async () => {
    assert.equal((await fetch(`${bare.origin}/metrics`)).status, 404);
    const r = await timedPost(`${bare.baseUrl}/chat/completions`, ask(), { authorization: `Bearer ${bare.key}` });
    assert.equal(r.status, 200, r.text);
    const ms = overheadOf(r.headers);
    assert.ok(ms > 0 && ms < r.ms, `header ${ms} ms, total ${r.ms} ms`);
  });
});
