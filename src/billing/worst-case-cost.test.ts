import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Endpoint, ModelInfo } from '../catalog/types.ts';
import { compilePricing } from '../money/pricing.ts';
import { affordableOutputTokens, dearestEndpoint, worstCaseCost } from './worst-case-cost.ts';

function endpoint(prompt: string, completion: string, extra: Partial<Endpoint> = {}): Endpoint {
  const pricing = { prompt, completion };
  return {
    id: `p/${prompt}`,
    modelId: 'a/m',
    upstreamModel: 'm',
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: 10_000,
    dataCollection: 'allow',
    zdr: false,
    supportedParameters: new Set(),
    provider: { id: 'p', kind: 'openai', name: 'p', baseUrl: 'http://x', timeoutMs: 1, cacheFamily: 'none' },
    ...extra,
  };
}
const model = { id: 'a/m' } as ModelInfo;
const req = (r: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  models: [],
  messages: [],
  sampling: {},
  stream: false,
  extra: {},
  ...r,
});

test('worst case = prompt bound × prompt price + max output × completion price + request fee', () => {
  const ep = endpoint('0.000001', '0.000002', {
    compiledPricing: compilePricing({ prompt: '0.000001', completion: '0.000002', request: '0.01' }, 'none'),
  });
  const cost = worstCaseCost(req({ maxOutputTokens: 500 }), [{ model, endpoint: ep }], 100);
  assert.equal(cost, 100n * 1000n + 500n * 2000n + 10_000_000n);
});

test('without max_tokens the endpoint maximum (or the context left) is held', () => {
  const ep = endpoint('0', '0.000001', { maxOutputTokens: 4096 });
  assert.equal(worstCaseCost(req(), [{ model, endpoint: ep }], 10), 4096n * 1000n);
  // The prompt may be shorter than its bound and leave the whole context to the output.
  const noMax = endpoint('0', '0.000001');
  assert.equal(worstCaseCost(req(), [{ model, endpoint: noMax }], 10), 10_000n * 1000n);
  const dearPrompt = endpoint('0.00001', '0.000001');
  assert.equal(worstCaseCost(req(), [{ model, endpoint: dearPrompt }], 100), 100n * 10_000n + 9_900n * 1000n);
});

test('over a plan, the dearest attempt counts (routing may fall back to it)', () => {
  const cheap = endpoint('0', '0.000001');
  const dear = endpoint('0', '0.00001');
  assert.equal(
    worstCaseCost(
      req({ maxOutputTokens: 100 }),
      [
        { model, endpoint: cheap },
        { model, endpoint: dear },
      ],
      0,
    ),
    1_000_000n,
  );
});

test('affordable output tokens: what is left after the prompt, divided by the completion price', () => {
  const ep = endpoint('0.000001', '0.00001');
  const available = 100n * 1000n + 123n * 10_000n + 5n; // enough for 123 tokens and change
  assert.equal(affordableOutputTokens(req(), ep, 100, available), 123);
  assert.equal(affordableOutputTokens(req(), ep, 100, 0n), 0);
});

test("the prompt bound is capped at each endpoint's context length: no provider charges a longer prompt", () => {
  const ep = endpoint('0.000001', '0', { maxOutputTokens: 10 });
  assert.equal(worstCaseCost(req(), [{ model, endpoint: ep }], 50_000), 10_000n * 1000n);
});

test('the dearest endpoint is the one whose worst case is highest, wherever it sits in the plan', () => {
  const cheap = endpoint('0.000001', '0.000001');
  const dear = endpoint('0.000001', '0.00001');
  assert.equal(
    dearestEndpoint(
      req({ maxOutputTokens: 100 }),
      [
        { model, endpoint: cheap },
        { model, endpoint: dear },
      ],
      10,
    ),
    dear,
  );
});
