import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gate } from '../emulators/openai-chat-emulator.ts';
import { sseData } from '../support/test-gateway.ts';
import { startRoutingRig, user, type RoutingRig } from './routing-fixture.ts';
import { generationRecord } from '../support/public-api.ts';

// Failover between endpoints and between models, and the rule that ends it: once a byte
// of the answer has reached the client, a failure is a mid-stream error, never a replay.

describe('routing: fallbacks', () => {
  let rig: RoutingRig;
  before(async () => {
    rig = await startRoutingRig();
  });
  after(async () => {
    await rig.close();
  });
  beforeEach(() => rig.reset());

  test('a failing endpoint hands over to the next one; the serving endpoint is billed and recorded', async () => {
    rig.emus.cheap.enqueue({ fault: 'status', status: 503 });
    rig.emus.mid.enqueue({ text: 'from mid', usage: { prompt_tokens: 100, completion_tokens: 10 } });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'mid');
    assert.equal(res.json.choices[0].message.content, 'from mid');
    assert.deepEqual(rig.received(), ['multi-cheap', 'multi-mid']);
    // mid's price: 110 tokens × $0.000002
    assert.equal(res.json.usage.cost, 0.00022);
    await rig.gw.flush();
    const gen = await generationRecord(rig.gw.origin, rig.gw.key, res.json.id);
    assert.equal(gen.provider_name, 'mid');
    assert.equal(gen.total_cost, 0.00022);
    const attempts = gen.attempts as Array<{ provider: string; status: number; errorCode: string | null }>;
    assert.deepEqual(
      attempts.map((a) => [a.provider, a.status, a.errorCode]),
      [
        ['cheap', 503, 'provider_error'],
        ['mid', 200, null],
      ],
    );
  });

  test('models: endpoints of the first model, then the next model; the response names the model used', async () => {
    rig.emus.mid.enqueue({ fault: 'status', status: 500 });
    rig.emus.dear.enqueue({ text: 'backup here', usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
    const res = await rig.chat({ model: 'acme/other', models: ['acme/backup'], messages: user('hi') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/backup');
    assert.equal(res.json.provider, 'dear');
    assert.deepEqual(rig.received(), ['other-mid', 'backup-dear']);
    // acme/backup's price: 1000 × $0.000003 + 1000 × $0.000006
    assert.equal(res.json.usage.cost, 0.009);
  });

  test('route: "fallback" with models behaves the same', async () => {
    rig.emus.mid.enqueue({ fault: 'status', status: 502 });
    const res = await rig.chat({ model: 'acme/other', models: ['acme/backup'], route: 'fallback', messages: user('hi') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/backup');
  });

  test('models without model: the first of the list is the primary', async () => {
    const res = await rig.chat({ models: ['acme/backup', 'acme/other'], messages: user('hi') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/backup');
  });

  test('fallbacks as model strings', async () => {
    rig.emus.mid.enqueue({ fault: 'status', status: 500 });
    const res = await rig.chat({ model: 'acme/other', fallbacks: ['acme/backup'], messages: user('hi') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/backup');
    assert.deepEqual(rig.received(), ['other-mid', 'backup-dear']);
  });

  test('fallbacks as {model, provider}: the fallback routes by its own preferences', async () => {
    rig.emus.mid.enqueue({ fault: 'status', status: 500 });
    const res = await rig.chat({
      model: 'acme/other',
      fallbacks: [{ model: 'acme/multi', provider: { order: ['dear'], allow_fallbacks: false } }],
      messages: user('hi'),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/multi');
    assert.equal(res.json.provider, 'dear');
    assert.deepEqual(rig.received(), ['other-mid', 'multi-dear']);
  });

  test('every attempt failed: the last provider error, with the earlier attempts', async () => {
    rig.emus.mid.enqueue({ fault: 'status', status: 500, body: { error: { message: 'mid down' } } });
    // dear is the plan's last endpoint: tried, then retried twice.
    for (let i = 0; i < 3; i++) rig.emus.dear.enqueue({ fault: 'status', status: 502, body: { error: { message: 'dear down' } } });
    const res = await rig.chat({ model: 'acme/other', fallbacks: ['acme/backup'], messages: user('hi') });
    assert.equal(res.status, 502);
    const error = res.json.error;
    assert.equal(error.type, 'provider_error');
    assert.equal(error.code, 'provider_error');
    assert.equal(error.metadata.provider_name, 'dear');
    assert.deepEqual(error.metadata.raw, { error: { message: 'dear down' } });
    assert.deepEqual(error.metadata.attempts, [
      { model: 'acme/other', provider: 'mid', endpoint: 'mid/other-mid', status: 500, code: 'provider_error' },
      { model: 'acme/backup', provider: 'dear', endpoint: 'dear/backup-dear', status: 502, code: 'provider_error' },
      { model: 'acme/backup', provider: 'dear', endpoint: 'dear/backup-dear', status: 502, code: 'provider_error' },
    ]);
    assert.deepEqual(rig.received(), ['other-mid', 'backup-dear', 'backup-dear', 'backup-dear']);
  });

  test('a request the provider refuses as invalid is not sent to another', async () => {
    rig.emus.cheap.enqueue({ fault: 'status', status: 400, body: { error: { message: 'bad stop' } } });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' } });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'upstream_rejected_request');
    assert.deepEqual(rig.received(), ['multi-cheap']);
  });

  test('a refused request skips the rest of its model but goes to the fallback model', async () => {
    rig.emus.cheap.enqueue({ fault: 'status', status: 400, body: { error: { message: 'prompt too long for this model' } } });
    const res = await rig.chat({ model: 'acme/multi', fallbacks: ['acme/backup'], messages: user('hi'), provider: { sort: 'price' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.model, 'acme/backup');
    assert.deepEqual(rig.received(), ['multi-cheap', 'backup-dear']);
  });

  test('a stream that fails before its first byte fails over', async () => {
    rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
    rig.emus.mid.enqueue({ text: 'streamed by mid', chunks: 3 });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' }, stream: true });
    assert.equal(res.status, 200);
    const chunks = (sseData(res.text) as any[]).filter((c) => c !== '[DONE]');
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'streamed by mid');
    assert.equal(chunks[0].provider, 'mid');
    assert.deepEqual(rig.received(), ['multi-cheap', 'multi-mid']);
  });

  test('no failover once a byte has reached the client: the failure is a mid-stream error', async () => {
    rig.emus.cheap.enqueue({ fault: 'reset-mid-stream', afterChunks: 3 });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' }, stream: true });
    assert.equal(res.status, 200);
    const events = sseData(res.text) as any[];
    assert.ok(
      events.some((e) => e !== '[DONE]' && typeof e.choices?.[0]?.delta?.content === 'string' && e.choices[0].delta.content.length > 0),
      'content went out first',
    );
    assert.equal(events.at(-1).error.type, 'provider_error');
    assert.deepEqual(rig.received(), ['multi-cheap'], 'mid and dear were never asked');
  });

  test('a streamed error part before any content fails over too', async () => {
    rig.emus.cheap.enqueue({ fault: 'stream-error', afterChunks: 1, error: { message: 'overloaded', type: 'server_error' } });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' }, stream: true });
    assert.equal(res.status, 200);
    const chunks = (sseData(res.text) as any[]).filter((c) => c !== '[DONE]');
    assert.equal(chunks[0].provider, 'mid');
    assert.deepEqual(rig.received(), ['multi-cheap', 'multi-mid']);
  });
});

describe('routing: time limits', () => {
  test('an endpoint slower than the attempt timeout hands over to the next', async () => {
    const rig = await startRoutingRig({ attemptMs: 200 });
    try {
      // An upstream that never answers: slower than any attempt timeout, however busy the machine.
      rig.emus.cheap.enqueue({ fault: 'hang' });
      const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.provider, 'mid');
      await rig.gw.flush();
      const attempts = (await generationRecord(rig.gw.origin, rig.gw.key, res.json.id)).attempts as Array<{ errorCode: string | null }>;
      assert.deepEqual(
        attempts.map((a) => a.errorCode),
        ['timeout', null],
      );
    } finally {
      await rig.close();
    }
  });

  // An upstream that answers 200 and then sends nothing: only the first-content deadline
  // catches it (undici's header timeout has passed, its body timeout is ten minutes). The
  // request limit is 5 s, so without that deadline these would end in a 408 after 5 s.
  async function stalled(opts: { stream: boolean; afterChunks?: number }): Promise<void> {
    const rig = await startRoutingRig({ attemptMs: 300, requestMs: 5_000 });
    try {
      rig.emus.cheap.enqueue({
        fault: 'stall-after-headers',
        ...(opts.afterChunks === undefined ? {} : { afterChunks: opts.afterChunks }),
      });
      rig.emus.mid.enqueue({ text: 'from mid', chunks: 2 });
      const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' }, stream: opts.stream });
      assert.equal(res.status, 200, res.text);
      if (opts.stream) {
        const chunks = (sseData(res.text) as any[]).filter((c) => c !== '[DONE]');
        assert.equal(chunks[0].provider, 'mid');
        assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'from mid');
      } else {
        assert.equal(res.json.provider, 'mid');
        assert.equal(res.json.choices[0].message.content, 'from mid');
      }
      // Given up by the attempt's deadline (its record says timeout), not the request's 5 s
      // limit, which would have ended the request with a 408 and no answer from mid.
      assert.deepEqual(rig.received(), ['multi-cheap', 'multi-mid']);
      await rig.gw.flush();
      const id = opts.stream ? (sseData(res.text) as any[])[0].id : res.json.id;
      const attempts = (await generationRecord(rig.gw.origin, rig.gw.key, id)).attempts as Array<{
        provider: string;
        status: number;
        errorCode: string | null;
      }>;
      assert.deepEqual(
        attempts.map((a) => [a.provider, a.status, a.errorCode]),
        [
          ['cheap', 200, 'timeout'],
          ['mid', 200, null],
        ],
      );
      await waitFor(() => rig.emus.cheap.closedEarly === 1, 'the stalled upstream request was closed');
    } finally {
      await rig.close();
    }
  }

  test('a stream that stalls after its headers is given up at the attempt timeout and the next endpoint serves', () =>
    stalled({ stream: true }));

  test('a stream that sends its role chunk and then stalls (no content) is given up too', () => stalled({ stream: true, afterChunks: 1 }));

  test('a non-streamed answer whose body does not start within the attempt timeout hands over too', () => stalled({ stream: false }));

  test('once content flows, the attempt timeout no longer applies: a slow stream is not cut', async () => {
    const rig = await startRoutingRig({ attemptMs: 400, requestMs: 5_000 });
    try {
      // cheap sends its role chunk and first content at once, then holds the rest of the
      // stream until the test opens the gate: after the 400 ms attempt timeout has passed.
      const rest = gate();
      rig.emus.cheap.enqueue({ fault: 'held', until: rest.until, afterChunks: 2, then: { text: 'slow but steady', chunks: 3 } });
      const slow = rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' }, stream: true });
      await waitFor(() => rig.emus.cheap.requests.length === 1, 'the slow stream started');
      // The clock: a request started after that stream, to an endpoint that never answers,
      // given up at its own 400 ms attempt timeout (then refused, so it ends).
      rig.emus.dear.enqueue({ fault: 'hang' }, { fault: 'status', status: 400 });
      const clock = rig.chat({ model: 'acme/multi', messages: user('tick'), provider: { only: ['dear'] } });
      await waitFor(() => rig.emus.dear.closedEarly === 1, 'an attempt timeout passed');
      rest.open();
      const res = await slow;
      await clock;
      assert.equal(res.status, 200);
      const chunks = (sseData(res.text) as any[]).filter((c) => c !== '[DONE]');
      assert.equal(chunks[0].provider, 'cheap');
      assert.equal(chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join(''), 'slow but steady');
      assert.ok(
        chunks.every((c) => c.error === undefined),
        'no in-stream error',
      );
      assert.deepEqual(
        rig.received().filter((m) => m !== 'multi-dear'),
        ['multi-cheap'],
      );
    } finally {
      await rig.close();
    }
  });

  test('the whole request past its limit is a 408, whatever is left of the plan', async () => {
    const rig = await startRoutingRig({ requestMs: 300 });
    try {
      rig.emus.cheap.enqueue({ fault: 'hang' });
      const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' } });
      assert.equal(res.status, 408);
      assert.equal(res.json.error.type, 'timeout_error');
      assert.deepEqual(rig.received(), ['multi-cheap']);
    } finally {
      await rig.close();
    }
  });
});

/** Waits for an event; the limit is only a safety net against a test that would hang. */
async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > until) assert.fail(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
