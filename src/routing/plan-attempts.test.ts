import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePricing } from '../money/pricing.ts';
import { Catalog } from '../catalog/catalog.ts';
import type { Endpoint, ModelInfo, PricingSpec, ProviderConfig } from '../catalog/types.ts';
import type { CanonicalRequest, ModelChoice, ProviderPreferences, RequestParameter } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { CircuitBreakers } from './circuit-breaker.ts';
import { InProcessHealthStore } from './health/in-process-health-store.ts';
import { AttemptPlanner } from './plan-attempts.ts';
import { seededRandom } from '../canonical/seeded-random.test-util.ts';

const ALL_PARAMS: RequestParameter[] = [
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'response_format',
  'structured_outputs',
  'seed',
];

interface EndpointSpec {
  upstream?: string;
  /** USD per million tokens. */
  prompt: number;
  completion: number;
  request?: string;
  image?: string;
  context?: number;
  maxOut?: number;
  quantization?: string;
  dataCollection?: 'allow' | 'deny';
  zdr?: boolean;
  params?: RequestParameter[];
}

function provider(id: string): ProviderConfig {
  return { id, kind: 'openai', name: id.toUpperCase(), baseUrl: `http://${id}`, timeoutMs: 1000, cacheFamily: 'none' };
}

function endpoint(modelId: string, providerId: string, spec: EndpointSpec): Endpoint {
  const pricing: PricingSpec = { prompt: (spec.prompt / 1e6).toFixed(12), completion: (spec.completion / 1e6).toFixed(12) };
  if (spec.request !== undefined) pricing.request = spec.request;
  if (spec.image !== undefined) pricing.image = spec.image;
  const upstream = spec.upstream ?? modelId.split('/')[1]!;
  const ep: Endpoint = {
    id: `${providerId}/${upstream}`,
    modelId,
    provider: provider(providerId),
    upstreamModel: upstream,
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: spec.context ?? 10_000,
    dataCollection: spec.dataCollection ?? 'allow',
    zdr: spec.zdr ?? false,
    supportedParameters: new Set(spec.params ?? ALL_PARAMS),
  };
  if (spec.maxOut !== undefined) ep.maxOutputTokens = spec.maxOut;
  if (spec.quantization !== undefined) ep.quantization = spec.quantization;
  return ep;
}

function model(id: string, endpoints: Record<string, EndpointSpec>): ModelInfo {
  return {
    id,
    kind: 'chat',
    name: id,
    author: id.split('/')[0]!,
    description: '',
    contextLength: 10_000,
    capabilities: ['text'],
    aliases: [],
    created: 0,
    endpoints: Object.entries(endpoints).map(([key, spec]) => endpoint(id, key.split(':')[0]!, spec)),
  };
}

// Three providers at $1, $2 and $4 per million tokens (prompt + completion).
const multi = model('acme/multi', {
  cheap: { prompt: 0.5, completion: 0.5, quantization: 'fp8', dataCollection: 'allow' },
  mid: { prompt: 1, completion: 1, quantization: 'FP16', dataCollection: 'deny', zdr: true },
  dear: { prompt: 2, completion: 2, dataCollection: 'deny' },
});
const variants = model('acme/variants', {
  'fast:turbo': { upstream: 'v-turbo', prompt: 3, completion: 3 },
  'fast:plain': { upstream: 'v', prompt: 1, completion: 1 },
  other: { prompt: 2, completion: 2 },
});
const tooly = model('acme/tooly', {
  notools: { prompt: 0.1, completion: 0.1, params: ['temperature', 'max_tokens'] },
  tools: { prompt: 1, completion: 1 },
});
const sized = model('acme/sized', {
  small: { prompt: 0.1, completion: 0.1, context: 1_000 },
  large: { prompt: 1, completion: 1, context: 100_000, maxOut: 8_000 },
});
const backup = model('acme/backup', {
  cheap: { upstream: 'backup-1', prompt: 1, completion: 1 },
  mid: { upstream: 'backup-2', prompt: 2, completion: 2, dataCollection: 'deny' },
});
const catalog = new Catalog([multi, variants, tooly, sized, backup], new Map());

function setup(seed = 1) {
  const clock = { now: 1_000_000 };
  const health = new InProcessHealthStore({ now: () => clock.now, summaryMinAgeMs: 0 });
  const breakers = new CircuitBreakers({ now: () => clock.now, failureThreshold: 2, cooldownMs: 30_000 });
  const planner = new AttemptPlanner({ catalog, health, breakers, random: seededRandom(seed) });
  return { clock, health, breakers, planner };
}

function request(models: Array<string | ModelChoice>, extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: models.map((m) => (typeof m === 'string' ? { model: m } : m)),
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
    sampling: {},
    stream: false,
    extra: {},
    ...extra,
  };
}

function ids(planner: AttemptPlanner, models: Array<string | ModelChoice>, extra: Partial<CanonicalRequest> = {}): string[] {
  return planner.plan(request(models, extra)).map((a) => a.endpoint.id);
}

function withPrefs(provider: ProviderPreferences, m = 'acme/multi'): string[] {
  return ids(setup().planner, [m], { provider });
}

function planError(planner: AttemptPlanner, req: CanonicalRequest): GatewayError {
  try {
    planner.plan(req);
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  assert.fail('expected the planner to refuse');
}

describe('AttemptPlanner: default selection', () => {
  it('draws the first endpoint weighted by 1/price², the rest follow cheapest first', () => {
    const { planner } = setup(2024);
    const n = 20_000;
    const first = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const plan = ids(planner, ['acme/multi']);
      first.set(plan[0]!, (first.get(plan[0]!) ?? 0) + 1);
      const rest = plan.slice(1);
      const byPrice = ['cheap/multi', 'mid/multi', 'dear/multi'].filter((e) => e !== plan[0]);
      assert.deepEqual(rest, byPrice, 'the fallbacks are the others, cheapest first');
    }
    // Weights 1/1², 1/2², 1/4²: shares 16/21, 4/21, 1/21.
    const expected = { 'cheap/multi': (n * 16) / 21, 'mid/multi': (n * 4) / 21, 'dear/multi': n / 21 };
    let chi2 = 0;
    for (const [id, e] of Object.entries(expected)) chi2 += ((first.get(id) ?? 0) - e) ** 2 / e;
    assert.ok(chi2 < 13.8, `chi² = ${chi2.toFixed(2)}: ${JSON.stringify(Object.fromEntries(first))}`);
  });

  it('an endpoint with a significant outage in the last 30 seconds goes last and is never drawn first', () => {
    const { planner, health, clock } = setup();
    for (let i = 0; i < 3; i++) health.record('cheap/multi', 'failure', -1, -1);
    for (let i = 0; i < 500; i++) assert.equal(ids(planner, ['acme/multi']).at(-1), 'cheap/multi');
    clock.now += 31_000;
    const firsts = new Set<string>();
    for (let i = 0; i < 200; i++) firsts.add(ids(planner, ['acme/multi'])[0]!);
    assert.ok(firsts.has('cheap/multi'), 'after 30 seconds it competes again');
  });

  it('free endpoints take the first place', () => {
    const free = model('acme/free', { paid: { prompt: 1, completion: 1 }, gratis: { prompt: 0, completion: 0 } });
    const planner = new AttemptPlanner({
      catalog: new Catalog([free], new Map()),
      health: new InProcessHealthStore(),
      breakers: new CircuitBreakers(),
      random: seededRandom(3),
    });
    for (let i = 0; i < 50; i++) assert.deepEqual(ids(planner, ['acme/free']), ['gratis/free', 'paid/free']);
  });
});

describe('AttemptPlanner: provider preferences', () => {
  it('order: named endpoints first, in that order, then the rest', () => {
    assert.deepEqual(withPrefs({ order: ['dear', 'mid'] }), ['dear/multi', 'mid/multi', 'cheap/multi']);
    assert.deepEqual(
      withPrefs({ order: ['DEAR'] }),
      ['dear/multi', 'cheap/multi', 'mid/multi'],
      'slugs are case-insensitive; the rest by price',
    );
  });

  it('order with allow_fallbacks: false uses the named endpoints only', () => {
    assert.deepEqual(withPrefs({ order: ['dear', 'mid'], allowFallbacks: false }), ['dear/multi', 'mid/multi']);
  });

  it('allow_fallbacks: false without order keeps the top endpoint alone', () => {
    assert.deepEqual(withPrefs({ allowFallbacks: false, sort: 'price' }), ['cheap/multi']);
    assert.equal(withPrefs({ allowFallbacks: false }).length, 1);
  });

  it('only and ignore; a provider slug matches all its endpoints, an endpoint id just one', () => {
    assert.deepEqual(withPrefs({ only: ['mid', 'dear'], sort: 'price' }), ['mid/multi', 'dear/multi']);
    assert.deepEqual(withPrefs({ ignore: ['cheap'], sort: 'price' }), ['mid/multi', 'dear/multi']);
    assert.deepEqual(withPrefs({ ignore: ['fast'] }, 'acme/variants'), ['other/variants']);
    assert.deepEqual(withPrefs({ ignore: ['fast/v-turbo'], sort: 'price' }, 'acme/variants'), ['fast/v', 'other/variants']);
    assert.deepEqual(withPrefs({ order: ['fast/v-turbo'], allowFallbacks: false }, 'acme/variants'), ['fast/v-turbo']);
    assert.deepEqual(
      withPrefs({ order: ['fast', 'other'] }, 'acme/variants'),
      ['fast/v', 'fast/v-turbo', 'other/variants'],
      'variants of one slug go cheapest first',
    );
  });

  it('quantizations (case-insensitive; "unknown" matches endpoints that do not say)', () => {
    assert.deepEqual(withPrefs({ quantizations: ['fp16'] }), ['mid/multi']);
    assert.deepEqual(withPrefs({ quantizations: ['fp8', 'unknown'], sort: 'price' }), ['cheap/multi', 'dear/multi']);
  });

  it('data_collection: deny and zdr', () => {
    assert.deepEqual(withPrefs({ dataCollection: 'deny', sort: 'price' }), ['mid/multi', 'dear/multi']);
    assert.deepEqual(withPrefs({ dataCollection: 'allow', sort: 'price' }), ['cheap/multi', 'mid/multi', 'dear/multi']);
    assert.deepEqual(withPrefs({ zdr: true }), ['mid/multi']);
  });

  it('max_price: prompt and completion in USD per million tokens (inclusive, exact), request and image per unit', () => {
    assert.deepEqual(withPrefs({ maxPrice: { prompt: 1 }, sort: 'price' }), ['cheap/multi', 'mid/multi']);
    assert.deepEqual(withPrefs({ maxPrice: { prompt: 0.999999 } }), ['cheap/multi']);
    assert.deepEqual(withPrefs({ maxPrice: { completion: 0.5 } }), ['cheap/multi']);
    const fees = model('acme/fees', {
      flat: { prompt: 1, completion: 1, request: '0.001' },
      pics: { prompt: 2, completion: 2, image: '0.01' },
    });
    const planner = new AttemptPlanner({
      catalog: new Catalog([fees], new Map()),
      health: new InProcessHealthStore(),
      breakers: new CircuitBreakers(),
      random: seededRandom(2),
    });
    assert.deepEqual(ids(planner, ['acme/fees'], { provider: { maxPrice: { request: 0.0005 } } }), ['pics/fees']);
    assert.deepEqual(ids(planner, ['acme/fees'], { provider: { maxPrice: { image: 0.005 } } }), ['flat/fees']);
  });

  it('require_parameters keeps only endpoints that support every parameter of the request', () => {
    const { planner } = setup();
    const req = request(['acme/tooly'], { sampling: { temperature: 0.3, topK: 5 }, provider: { requireParameters: true } });
    assert.deepEqual(
      planner.plan(req).map((a) => a.endpoint.id),
      ['tools/tooly'],
    );
    const err = planError(
      planner,
      request(['acme/tooly'], { sampling: { topK: 5 }, stop: ['x'], provider: { requireParameters: true, only: ['notools'] } }),
    );
    assert.equal(err.code, 'no_provider_available');
    assert.equal(err.status, 503);
    const excluded = err.metadata?.excluded as Array<{ endpoint: string; reason: string }>;
    assert.deepEqual(excluded.find((e) => e.endpoint === 'notools/tooly')?.reason, 'missing parameters: top_k, stop');
    assert.deepEqual(excluded.find((e) => e.endpoint === 'tools/tooly')?.reason, 'not in only');
  });

  it('without require_parameters, tools and response_format prefer endpoints that support them', () => {
    const { planner } = setup();
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    for (let i = 0; i < 50; i++) {
      assert.deepEqual(
        ids(planner, ['acme/tooly'], { tools }),
        ['tools/tooly', 'notools/tooly'],
        'the cheaper one lacks tools: it goes second',
      );
    }
    assert.deepEqual(ids(planner, ['acme/tooly'], { responseFormat: { type: 'json_object' }, provider: { sort: 'price' } }), [
      'tools/tooly',
      'notools/tooly',
    ]);
    assert.deepEqual(
      ids(planner, ['acme/tooly'], { provider: { sort: 'price' } }),
      ['notools/tooly', 'tools/tooly'],
      'no tools asked: price decides',
    );
  });

  it('sort: price, throughput and latency give a deterministic order from the health figures', () => {
    const { planner, health } = setup();
    health.record('cheap/multi', 'success', 900, 20);
    health.record('mid/multi', 'success', 300, 90);
    health.record('dear/multi', 'success', 600, 50);
    for (let i = 0; i < 20; i++) {
      assert.deepEqual(ids(planner, ['acme/multi'], { provider: { sort: 'price' } }), ['cheap/multi', 'mid/multi', 'dear/multi']);
      assert.deepEqual(ids(planner, ['acme/multi'], { provider: { sort: 'throughput' } }), ['mid/multi', 'dear/multi', 'cheap/multi']);
      assert.deepEqual(ids(planner, ['acme/multi'], { provider: { sort: 'latency' } }), ['mid/multi', 'dear/multi', 'cheap/multi']);
    }
  });

  it('endpoints without figures sort after those with', () => {
    const { planner, health } = setup();
    health.record('dear/multi', 'success', 600, 50);
    assert.deepEqual(ids(planner, ['acme/multi'], { provider: { sort: 'throughput' } }), ['dear/multi', 'cheap/multi', 'mid/multi']);
  });

  it(':nitro sorts by throughput and :floor by price; an explicit sort wins', () => {
    const { planner, health } = setup();
    health.record('cheap/multi', 'success', 900, 20);
    health.record('mid/multi', 'success', 300, 30);
    health.record('dear/multi', 'success', 600, 90);
    assert.deepEqual(ids(planner, ['acme/multi:nitro']), ['dear/multi', 'mid/multi', 'cheap/multi']);
    assert.deepEqual(ids(planner, ['acme/multi:floor']), ['cheap/multi', 'mid/multi', 'dear/multi']);
    assert.deepEqual(ids(planner, ['acme/multi:nitro'], { provider: { sort: 'latency' } }), ['mid/multi', 'dear/multi', 'cheap/multi']);
  });
});

describe('AttemptPlanner: fallback models', () => {
  it('endpoints of the first model are all tried before those of the next', () => {
    const plan = setup().planner.plan(request(['acme/multi', 'acme/backup'], { provider: { sort: 'price' } }));
    assert.deepEqual(
      plan.map((a) => `${a.model.id} ${a.endpoint.id}`),
      ['acme/multi cheap/multi', 'acme/multi mid/multi', 'acme/multi dear/multi', 'acme/backup cheap/backup-1', 'acme/backup mid/backup-2'],
    );
  });

  it("a fallback's own provider preferences override the request's field by field", () => {
    const plan = setup().planner.plan(
      request(['acme/multi', { model: 'acme/backup', provider: { order: ['mid'] } }], {
        provider: { dataCollection: 'deny', order: ['dear'] },
      }),
    );
    assert.deepEqual(
      plan.map((a) => a.endpoint.id),
      ['dear/multi', 'mid/multi', 'mid/backup-2'],
      'deny still applies to the fallback',
    );
  });

  it('a model whose endpoints are all excluded leaves the others', () => {
    const plan = setup().planner.plan(request(['acme/multi', 'acme/backup'], { provider: { only: ['mid'] } }));
    assert.deepEqual(
      plan.map((a) => a.endpoint.id),
      ['mid/multi', 'mid/backup-2'],
    );
  });

  it('the same model named twice is planned once', () => {
    assert.deepEqual(ids(setup().planner, ['acme/multi:floor', 'acme/multi']), ['cheap/multi', 'mid/multi', 'dear/multi']);
  });

  it('two models on the same upstream model are both planned, each with its own endpoint', () => {
    const cheapAlias = model('house/cheap', { cheap: { upstream: 'multi', prompt: 0.1, completion: 0.1 } });
    const planner = new AttemptPlanner({
      catalog: new Catalog([multi, cheapAlias], new Map()),
      health: new InProcessHealthStore(),
      breakers: new CircuitBreakers(),
      random: seededRandom(1),
    });
    const plan = planner.plan(request(['house/cheap', 'acme/multi:floor']));
    assert.deepEqual(
      plan.map((a) => [a.model.id, a.endpoint.id]),
      [
        ['house/cheap', 'cheap/multi'],
        ['acme/multi', 'cheap/multi'],
        ['acme/multi', 'mid/multi'],
        ['acme/multi', 'dear/multi'],
      ],
    );
    assert.notEqual(plan[0]!.endpoint, plan[1]!.endpoint, 'each at its own price');
  });

  it('an unknown model is a 400 model_not_found', () => {
    const err = planError(setup().planner, request(['acme/multi', 'acme/nope']));
    assert.equal(err.code, 'model_not_found');
  });
});

describe('AttemptPlanner: context windows and exclusions', () => {
  const long = 'word '.repeat(3_000); // about 3,000 tokens: more than `small` holds

  it('an endpoint too small for the prompt is left out; one with room is chosen', () => {
    const { planner } = setup();
    assert.deepEqual(ids(planner, ['acme/sized'], { messages: [{ role: 'user', content: [{ type: 'text', text: long }] }] }), [
      'large/sized',
    ]);
  });

  it('an endpoint without room for max_tokens goes after one with room', () => {
    const { planner } = setup();
    const messages: CanonicalRequest['messages'] = [{ role: 'user', content: [{ type: 'text', text: 'word '.repeat(500) }] }];
    assert.deepEqual(ids(planner, ['acme/sized'], { messages, maxOutputTokens: 900, provider: { sort: 'price' } }), [
      'large/sized',
      'small/sized',
    ]);
    assert.deepEqual(ids(planner, ['acme/sized'], { messages, maxOutputTokens: 100, provider: { sort: 'price' } }), [
      'small/sized',
      'large/sized',
    ]);
    assert.deepEqual(
      ids(planner, ['acme/sized'], { maxOutputTokens: 9_000, provider: { sort: 'price' } }),
      ['small/sized', 'large/sized'],
      "above large's max output: both lack room",
    );
  });

  it("a prompt longer than every candidate's window is a 400 context_length_exceeded", () => {
    const err = planError(
      setup().planner,
      request(['acme/multi'], { messages: [{ role: 'user', content: [{ type: 'text', text: 'word '.repeat(12_000) }] }] }),
    );
    assert.equal(err.code, 'context_length_exceeded');
    assert.equal(err.status, 400);
    assert.equal(err.metadata?.context_length, 10_000);
    assert.ok((err.metadata?.prompt_tokens as number) > 10_000);
  });

  it('an endpoint with a big enough window that is merely unavailable makes it a 503, not a 400', () => {
    const { planner, breakers } = setup();
    breakers.onFailure('large/sized');
    breakers.onFailure('large/sized');
    const err = planError(planner, request(['acme/sized'], { messages: [{ role: 'user', content: [{ type: 'text', text: long }] }] }));
    assert.equal(err.code, 'no_provider_available');
  });

  it('the 503 says, per endpoint, what excluded it; an open circuit adds Retry-After', () => {
    const { planner, breakers, clock } = setup();
    breakers.onFailure('mid/multi');
    breakers.onFailure('mid/multi');
    clock.now += 10_000;
    const err = planError(planner, request(['acme/multi'], { provider: { ignore: ['cheap'], quantizations: ['fp16'] } }));
    assert.equal(err.code, 'no_provider_available');
    assert.equal(err.type, 'service_unavailable_error');
    assert.deepEqual(err.metadata?.excluded, [
      { model: 'acme/multi', endpoint: 'cheap/multi', provider: 'cheap', reason: 'ignored' },
      { model: 'acme/multi', endpoint: 'mid/multi', provider: 'mid', reason: 'circuit open' },
      { model: 'acme/multi', endpoint: 'dear/multi', provider: 'dear', reason: 'quantization' },
    ]);
    assert.equal(err.headers?.['retry-after'], '20');
  });

  it('a half-open circuit is planned (the executor sends one probe)', () => {
    const { planner, breakers, clock } = setup();
    breakers.onFailure('mid/multi');
    breakers.onFailure('mid/multi');
    assert.deepEqual(withPrefsOn(planner, { only: ['mid', 'dear'], sort: 'price' }), ['dear/multi']);
    clock.now += 30_000;
    assert.deepEqual(withPrefsOn(planner, { only: ['mid', 'dear'], sort: 'price' }), ['mid/multi', 'dear/multi']);
  });
});

function withPrefsOn(planner: AttemptPlanner, provider: ProviderPreferences): string[] {
  return ids(planner, ['acme/multi'], { provider });
}
