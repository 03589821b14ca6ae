import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRoutingRig, user, type RoutingRig } from './routing-fixture.ts';
import { generationRecord } from '../support/public-api.ts';

// Provider preferences end to end: three emulated providers serve acme/multi at $2, $4 and
// $8 per million tokens (cheap: fp8, keeps data, no tools; mid: fp16, deny, zdr; dear:
// fp16, deny, a request fee). Which upstream received the request tells who was chosen.

const tools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];

describe('routing: provider preferences', () => {
  let rig: RoutingRig;
  before(async () => {
    rig = await startRoutingRig();
  });
  after(async () => {
    await rig.close();
  });
  beforeEach(() => rig.reset());

  async function servedBy(provider: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string[]> {
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider, ...extra });
    assert.equal(res.status, 200, res.text);
    return rig.received();
  }

  test('order: the named provider serves, and the response says which', async () => {
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { order: ['dear', 'mid'] } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'dear');
    assert.equal(res.json.model, 'acme/multi');
    assert.deepEqual(rig.received(), ['multi-dear']);
  });

  test('order falls back to the rest when the named providers fail', async () => {
    rig.emus.dear.enqueue({ fault: 'status', status: 500 });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { order: ['dear'], sort: 'price' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'cheap');
    assert.deepEqual(rig.received(), ['multi-dear', 'multi-cheap']);
  });

  test('allow_fallbacks: false stops at the providers named in order', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) rig.emus.dear.enqueue({ fault: 'status', status: 500 });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { order: ['dear'], allow_fallbacks: false } });
    assert.equal(res.status, 502);
    assert.equal(res.json.error.metadata.provider_name, 'dear');
    assert.deepEqual(rig.received(), ['multi-dear', 'multi-dear', 'multi-dear'], 'the one endpoint only');
  });

  test('allow_fallbacks: false without order tries the top endpoint only', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'price', allow_fallbacks: false } });
    assert.equal(res.status, 502);
    assert.deepEqual(rig.received(), ['multi-cheap', 'multi-cheap', 'multi-cheap'], 'the top endpoint only');
  });

  test('only and ignore', async () => {
    assert.deepEqual(await servedBy({ only: ['mid', 'dear'], sort: 'price' }), ['multi-mid']);
    rig.reset();
    assert.deepEqual(await servedBy({ ignore: ['cheap', 'mid'] }), ['multi-dear']);
    rig.reset();
    assert.deepEqual(await servedBy({ ignore: ['cheap/multi-cheap'], sort: 'price' }), ['multi-mid'], 'an endpoint id names one endpoint');
  });

  test('quantizations', async () => {
    assert.deepEqual(await servedBy({ quantizations: ['fp16'], sort: 'price' }), ['multi-mid']);
    rig.reset();
    assert.deepEqual(await servedBy({ quantizations: ['FP8'] }), ['multi-cheap']);
  });

  test('data_collection: deny and zdr', async () => {
    assert.deepEqual(await servedBy({ data_collection: 'deny', sort: 'price' }), ['multi-mid']);
    rig.reset();
    assert.deepEqual(await servedBy({ zdr: true }), ['multi-mid']);
  });

  test('max_price in USD per million tokens (prompt, completion) and per request', async () => {
    assert.deepEqual(
      await servedBy({ max_price: { prompt: 2, completion: 2 }, ignore: ['cheap'] }),
      ['multi-mid'],
      '$2 is within a $2 limit',
    );
    rig.reset();
    // Deterministic: order puts dear first, so only the filter keeps it from serving (a
    // draw between mid and dear would pick mid 80 % of the time even with no filter).
    for (const limit of [{ prompt: 2, completion: 2 }, { prompt: 2 }, { completion: 2 }]) {
      assert.deepEqual(
        await servedBy({ max_price: limit, order: ['dear'], ignore: ['cheap'] }),
        ['multi-mid'],
        `dear ($4 + $4) is over ${JSON.stringify(limit)}`,
      );
      rig.reset();
    }
    const none = await rig.chat({
      model: 'acme/multi',
      messages: user('hi'),
      provider: { only: ['dear'], max_price: { prompt: 3, completion: 3 } },
    });
    assert.equal(none.status, 503);
    assert.deepEqual(none.json.error.metadata.excluded.find((e: any) => e.provider === 'dear')?.reason, 'max_price');
    rig.reset();
    const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { only: ['dear'], max_price: { request: 0.0005 } } });
    assert.equal(res.status, 503);
    assert.deepEqual(
      res.json.error.metadata.excluded.find((e: any) => e.provider === 'dear'),
      {
        model: 'acme/multi',
        endpoint: 'dear/multi-dear',
        provider: 'dear',
        reason: 'max_price',
      },
    );
  });

  test('require_parameters leaves out endpoints that would drop a parameter', async () => {
    assert.deepEqual(await servedBy({ sort: 'price', require_parameters: true }, { top_k: 5 }), ['multi-mid']);
    rig.reset();
    assert.deepEqual(await servedBy({ sort: 'price' }, { top_k: 5 }), ['multi-cheap'], 'without it, the cheapest serves and drops top_k');
    assert.equal(rig.emus.cheap.requests[0]!.body.top_k, undefined);
  });

  test('tools and response_format prefer endpoints that support them, even without require_parameters', async () => {
    rig.emus.mid.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    assert.deepEqual(await servedBy({ sort: 'price' }, { tools }), ['multi-mid']);
    assert.deepEqual(rig.emus.mid.requests[0]!.body.tools, tools);
    rig.reset();
    assert.deepEqual(await servedBy({ sort: 'price' }, { response_format: { type: 'json_object' } }), ['multi-mid']);
  });

  test(':floor sorts by price', async () => {
    const res = await rig.chat({ model: 'acme/multi:floor', messages: user('hi') });
    assert.equal(res.json.provider, 'cheap');
    assert.equal(res.json.model, 'acme/multi', 'the variant is routing, not a model');
  });

  test('no endpoint meets the preferences: 503 saying what excluded each', async () => {
    const res = await rig.chat({
      model: 'acme/multi',
      messages: user('hi'),
      provider: { only: ['cheap', 'dear'], data_collection: 'deny', quantizations: ['fp8'] },
    });
    assert.equal(res.status, 503);
    assert.equal(res.json.error.type, 'service_unavailable_error');
    assert.equal(res.json.error.code, 'no_provider_available');
    assert.deepEqual(
      res.json.error.metadata.excluded.map((e: any) => `${e.provider}: ${e.reason}`),
      ['cheap: data_collection', 'mid: not in only', 'dear: quantization'],
    );
    assert.deepEqual(rig.received(), []);
  });

  test('a prompt longer than every window is a 400 before any upstream call; an endpoint with room is chosen over one without', async () => {
    const longish = 'word '.repeat(1_000); // ~1,000 tokens: too many for small-cheap (500), fine for small-mid (2,000)
    const ok = await rig.chat({ model: 'acme/small', messages: user(longish) });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(rig.received(), ['small-mid']);
    rig.reset();
    const res = await rig.chat({ model: 'acme/small', messages: user('word '.repeat(5_000)) });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'context_length_exceeded');
    assert.equal(res.json.error.type, 'invalid_request_error');
    assert.equal(res.json.error.metadata.context_length, 2000);
    assert.deepEqual(rig.received(), []);
  });

  test("billing uses the serving endpoint's price", async () => {
    const before = (await rig.gw.services.stores.accounts.balance(rig.gw.accountId))!;
    rig.emus.dear.enqueue({ text: 'pricey', usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const res = await rig.chat({ model: 'acme/multi', messages: user('bill me'), provider: { order: ['dear'] } });
    assert.equal(res.status, 200, res.text);
    // 1000 × $0.000004 + 500 × $0.000004 + $0.001 request fee = $0.007
    assert.equal(res.json.usage.cost, 0.007);
    await rig.gw.flush();
    assert.equal(before - (await rig.gw.services.stores.accounts.balance(rig.gw.accountId))!, 7_000_000n);
    const gen = await generationRecord(rig.gw.origin, rig.gw.key, res.json.id);
    assert.equal(gen.provider_name, 'dear');
    assert.equal(gen.total_cost, 0.007);
  });
});

describe('routing: sorting by health figures', () => {
  // A fresh gateway per test: its health figures are only the ones the test records.
  async function withRig(fn: (rig: RoutingRig) => Promise<void>): Promise<void> {
    const rig = await startRoutingRig();
    try {
      await fn(rig);
    } finally {
      await rig.close();
    }
  }

  function seed(rig: RoutingRig): void {
    const health = rig.gw.services.health;
    for (let i = 0; i < 5; i++) {
      health.record('dear/multi-dear', 'success', 300, 180);
      health.record('mid/multi-mid', 'success', 200, 90);
      health.record('cheap/multi-cheap', 'success', 900, 30);
    }
  }

  test(':nitro takes the highest throughput first', () =>
    withRig(async (rig) => {
      seed(rig);
      const res = await rig.chat({ model: 'acme/multi:nitro', messages: user('hi') });
      assert.equal(res.json.provider, 'dear');
    }));

  test('sort: throughput and latency', () =>
    withRig(async (rig) => {
      seed(rig);
      let res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'latency' } });
      assert.equal(res.json.provider, 'mid');
      res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { sort: 'throughput' } });
      assert.equal(res.json.provider, 'dear');
    }));

  test('an explicit sort wins over the variant', () =>
    withRig(async (rig) => {
      seed(rig);
      const res = await rig.chat({ model: 'acme/multi:nitro', messages: user('hi'), provider: { sort: 'price' } });
      assert.equal(res.json.provider, 'cheap');
    }));
});

describe('routing: the default weighted draw', () => {
  let rig: RoutingRig;
  before(async () => {
    rig = await startRoutingRig();
  });
  after(async () => {
    await rig.close();
  });

  test('spreads first choices by 1/price² (16 : 4 : 1 for $2, $4, $8)', async () => {
    const n = 210;
    const counts: Record<string, number> = { cheap: 0, mid: 0, dear: 0 };
    for (let i = 0; i < n; i++) {
      const res = await rig.chat({ model: 'acme/multi', messages: user(`draw ${i}`) });
      assert.equal(res.status, 200, res.text);
      counts[res.json.provider]!++;
    }
    // Expected 160 / 40 / 10; bounds at about five standard deviations.
    assert.ok(counts.cheap! > 125 && counts.cheap! < 190, JSON.stringify(counts));
    assert.ok(counts.mid! > 12 && counts.mid! < 70, JSON.stringify(counts));
    assert.ok(counts.dear! < 30, JSON.stringify(counts));
  });
});
