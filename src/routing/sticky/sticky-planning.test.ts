import type { RequestParameter } from '../../canonical/request.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../catalog/catalog.ts';
import type { Endpoint, ModelInfo } from '../../catalog/types.ts';
import type { CanonicalRequest, ProviderPreferences } from '../../canonical/request.ts';
import { seededRandom } from '../../canonical/seeded-random.test-util.ts';
import { compilePricing } from '../../money/pricing.ts';
import { CircuitBreakers } from '../circuit-breaker.ts';
import { InProcessHealthStore } from '../health/in-process-health-store.ts';
import { AttemptPlanner } from '../plan-attempts.ts';

// The planner's half of sticky routing: the remembered endpoint first, the rest unchanged.

function endpoint(providerId: string, params: RequestParameter[]): Endpoint {
  const pricing = { prompt: '0.000001', completion: '0.000001' };
  return {
    id: `${providerId}/m`,
    modelId: 'acme/m',
    upstreamModel: 'm',
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    provider: { id: providerId, kind: 'openai', name: providerId, baseUrl: `http://${providerId}`, timeoutMs: 1000, cacheFamily: 'none' },
    contextLength: 10_000,
    dataCollection: 'allow',
    zdr: false,
    supportedParameters: new Set(params),
  };
}

const ALL: RequestParameter[] = ['temperature', 'max_tokens', 'tools', 'tool_choice'];
const m: ModelInfo = {
  id: 'acme/m',
  kind: 'chat',
  name: 'm',
  author: 'acme',
  description: '',
  contextLength: 10_000,
  capabilities: ['text'],
  aliases: [],
  created: 0,
  endpoints: [endpoint('a', ALL), endpoint('b', ALL), endpoint('c', ['temperature'])],
};
const catalog = new Catalog([m], new Map());

function setup() {
  const clock = { now: 1_000_000 };
  const breakers = new CircuitBreakers({ now: () => clock.now, failureThreshold: 1, cooldownMs: 30_000 });
  const health = new InProcessHealthStore({ now: () => clock.now, summaryMinAgeMs: 0 });
  return { clock, breakers, planner: new AttemptPlanner({ catalog, health, breakers, random: seededRandom(3) }) };
}

function req(extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: [{ model: 'acme/m' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
    ...extra,
  };
}

function plan(planner: AttemptPlanner, sticky: string | null, extra: Partial<CanonicalRequest> = {}): string[] {
  return planner.plan(req(extra), undefined, sticky).map((a) => a.endpoint.id);
}

describe('AttemptPlanner: sticky endpoint', () => {
  it('moves the sticky endpoint first and keeps the others in their order behind it', () => {
    const { planner } = setup();
    const drawn = plan(setup().planner, null);
    const sticky = drawn[2]!;
    assert.deepEqual(plan(planner, sticky), [sticky, ...drawn.filter((id) => id !== sticky)]);
  });

  it('an explicit order wins over the sticky endpoint', () => {
    const provider: ProviderPreferences = { order: ['b'] };
    assert.equal(plan(setup().planner, 'a/m', { provider })[0], 'b/m');
  });

  it('an endpoint the filters exclude (only, ignore) is not brought back', () => {
    assert.deepEqual(plan(setup().planner, 'a/m', { provider: { only: ['b', 'c'] } }).includes('a/m'), false);
    assert.equal(plan(setup().planner, 'a/m', { provider: { only: ['a', 'b'] } })[0], 'a/m');
  });

  it('not while its circuit is open or half-open', () => {
    const { planner, breakers, clock } = setup();
    const sticky = plan(setup().planner, null)[2]!;
    breakers.onFailure(sticky);
    assert.equal(plan(planner, sticky).includes(sticky), false);
    clock.now += 31_000; // half-open: probing is for the draw, not for a pinned conversation
    assert.equal(breakers.state(sticky), 'half-open');
    assert.notEqual(plan(planner, sticky)[0], sticky);
  });

  it('not when it fits the request worse than the head (it lacks the tools the request uses)', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    assert.notEqual(plan(setup().planner, 'c/m', { tools })[0], 'c/m');
    assert.equal(plan(setup().planner, 'c/m')[0], 'c/m');
  });

  it('an unknown endpoint id (gone after a reload) changes nothing', () => {
    assert.deepEqual(plan(setup().planner, 'gone/m'), plan(setup().planner, null));
  });

  it('a draft finished with or without a sticky endpoint gives the same draw and the same models (the rate limits counted meanwhile stay right)', () => {
    const { planner } = setup();
    const draft = planner.draft(req());
    const drawn = draft.finish(null).map((a) => a.endpoint.id);
    assert.deepEqual(drawn, plan(setup().planner, null), 'one draw, as plan makes it');
    const sticky = drawn[2]!;
    const stuck = draft.finish(sticky);
    assert.deepEqual(
      stuck.map((a) => a.endpoint.id),
      [sticky, ...drawn.filter((id) => id !== sticky)],
    );
    assert.deepEqual(
      stuck.map((a) => a.model.id),
      draft.finish(null).map((a) => a.model.id),
    );
    assert.deepEqual(
      draft.finish(null).map((a) => a.endpoint.id),
      drawn,
      'finishing does not change the draft',
    );
  });
});
