import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeCost } from './compute-cost.ts';
import { compilePricing } from '../money/pricing.ts';

const usage = (
  u: Partial<{ input: number; cacheRead: number; cacheWrite: number; output: number; reasoning: number; images: number }>,
) => ({
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  reasoning: 0,
  ...u,
});

test('prompt and completion tokens at their prices, plus the request fee, exactly', () => {
  const p = compilePricing({ prompt: '0.000003', completion: '0.000015', request: '0.0005' }, 'none');
  const c = computeCost(usage({ input: 1000, output: 200 }), p);
  // 1000 × 3e-6 + 200 × 15e-6 + 5e-4 = 0.003 + 0.003 + 0.0005
  assert.equal(c.totalNanos, 6_500_000n);
  assert.equal(c.breakdown.prompt, '0.003');
  assert.equal(c.breakdown.completion, '0.003');
  assert.equal(c.breakdown.request, '0.0005');
});

test('reasoning tokens are part of output and billed as completion', () => {
  const p = compilePricing({ prompt: '0', completion: '0.00001' }, 'none');
  assert.equal(computeCost(usage({ output: 100, reasoning: 80 }), p).totalNanos, 1_000_000n);
});

test('prompt_cache_key family: cache reads at 0.5x, writes at the plain prompt price', () => {
  const p = compilePricing({ prompt: '0.000002', completion: '0' }, 'prompt_cache_key');
  // 1000 input of which 600 read from cache: 400 × 2e-6 + 600 × 1e-6
  assert.equal(computeCost(usage({ input: 1000, cacheRead: 600 }), p).totalNanos, 1_400_000n);
  assert.equal(computeCost(usage({ input: 1000, cacheWrite: 1000 }), p).totalNanos, 2_000_000n);
});

test('cache_control family: writes at 1.25x, reads at 0.1x', () => {
  const p = compilePricing({ prompt: '0.000003', completion: '0' }, 'cache_control');
  // 100 plain + 1000 written + 2000 read = 300e-6 + 3750e-6 + 600e-6
  const c = computeCost(usage({ input: 3100, cacheWrite: 1000, cacheRead: 2000 }), p);
  assert.equal(c.totalNanos, 4_650_000n);
  assert.equal(c.breakdown.cache_write, '0.00375');
  assert.equal(c.breakdown.cache_read, '0.0006');
});

test('per-endpoint cache price overrides win over the family default', () => {
  const p = compilePricing({ prompt: '0.000002', completion: '0', cache_read: '0.0000002' }, 'prompt_cache_key');
  assert.equal(computeCost(usage({ input: 1000, cacheRead: 1000 }), p).totalNanos, 200_000n);
});

test('image inputs at the per-image price; a sub-nano total rounds once, half up', () => {
  const p = compilePricing({ prompt: '0.0000000004', completion: '0', image: '0.001' }, 'none');
  const c = computeCost(usage({ input: 1, images: 2 }), p);
  assert.equal(c.totalNanos, 2_000_000n); // 0.4 nano-dollars of prompt rounds away
  assert.equal(computeCost(usage({ input: 2 }), p).totalNanos, 1n); // 0.8 rounds up
});
