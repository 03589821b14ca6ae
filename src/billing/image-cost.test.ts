import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { ImageResult, ImageTask } from '../canonical/task.ts';
import type { Usage } from '../canonical/usage.ts';
import type { Endpoint, ModelInfo } from '../catalog/types.ts';
import { compilePricing, type PricingSpec } from '../money/pricing.ts';
import { computeCost } from './compute-cost.ts';
import { addTaskUnits } from './task-cost.ts';
import { worstCaseCost } from './worst-case-cost.ts';

// Every way an image is priced, exact in nano-USD: per image, per image by size and
// quality, per token (text in, image in, image out); and the hold for n images.

const DALL_E_3: PricingSpec = {
  prompt: '0',
  completion: '0',
  image_output: '0.04',
  image_output_by: { '1024x1792/*': '0.08', '1792x1024/*': '0.08', '*/hd': '0.08', '1024x1792/hd': '0.12', '1792x1024/hd': '0.12' },
};
const GPT_IMAGE: PricingSpec = { prompt: '0.000005', completion: '0.00004', image_prompt: '0.00001' };

function endpoint(pricing: PricingSpec, maxOutputTokens?: number): Endpoint {
  return {
    id: 'p/m',
    modelId: 'a/m',
    upstreamModel: 'm',
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: 32_000,
    dataCollection: 'allow',
    zdr: false,
    supportedParameters: new Set(),
    provider: { id: 'p', kind: 'openai', name: 'p', baseUrl: 'http://x', timeoutMs: 1, cacheFamily: 'none' },
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}

function task(t: Partial<ImageTask> = {}): ImageTask {
  return { kind: 'image', operation: 'generate', prompt: 'p', n: 1, ...t };
}

/** The charge for an answer of `images` images to `t`, whose answer says `said` of itself. */
function charge(pricing: PricingSpec, t: ImageTask, images: number, said: Partial<ImageResult> = {}, tokens: Partial<Usage> = {}): bigint {
  const usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, ...tokens };
  const result: ImageResult = { kind: 'image', images: Array.from({ length: images }, () => ({ b64: '' })), outputFormat: 'png', ...said };
  addTaskUnits(usage, t, result);
  return computeCost(usage, compilePricing(pricing, 'none')).totalNanos;
}

test('per image: n images at image_output', () => {
  const sim: PricingSpec = { prompt: '0', completion: '0', image_output: '0.001' };
  assert.equal(charge(sim, task({ n: 3 }), 3), 3_000_000n);
  // Fewer images than asked: only those made are charged.
  assert.equal(charge(sim, task({ n: 3 }), 2), 2_000_000n);
});

test('per image by size and quality: the most specific entry, else image_output', () => {
  const table: [Partial<ImageTask>, Partial<ImageResult>, bigint][] = [
    [{}, {}, 40_000_000n],
    [{ size: '1024x1024', quality: 'standard' }, {}, 40_000_000n],
    [{ size: '1024x1024', quality: 'hd' }, {}, 80_000_000n],
    [{ quality: 'hd' }, {}, 80_000_000n],
    [{ size: '1792x1024' }, {}, 80_000_000n],
    [{ size: '1024x1792', quality: 'standard' }, {}, 80_000_000n],
    [{ size: '1792x1024', quality: 'hd' }, {}, 120_000_000n],
    [{ size: '1024x1792', quality: 'hd' }, {}, 120_000_000n],
    // A side left open (auto) is priced by what the answer says it made.
    [{ size: 'auto', quality: 'hd' }, { size: '1792x1024' }, 120_000_000n],
    // A side the request fixed wins over the answer (the hold was priced on it).
    [{ size: '1024x1024', quality: 'standard' }, { size: '1792x1024', quality: 'hd' }, 40_000_000n],
  ];
  for (const [asked, said, nanos] of table) assert.equal(charge(DALL_E_3, task(asked), 1, said), nanos, JSON.stringify({ asked, said }));
  assert.equal(charge(DALL_E_3, task({ n: 2, quality: 'hd' }), 2), 160_000_000n);
});

test('per token: text in at prompt, image tokens in at image_prompt, image tokens out at completion', () => {
  // 10 text + 40 image tokens in, 100 out: 10 × $5/M + 40 × $10/M + 100 × $40/M = $0.00445.
  assert.equal(charge(GPT_IMAGE, task({ operation: 'edit' }), 1, {}, { input: 50, imageInputTokens: 40, output: 100 }), 4_450_000n);
  // 10 in, 200 out (n = 2): $0.00805.
  assert.equal(charge(GPT_IMAGE, task({ n: 2 }), 2, {}, { input: 10, output: 200 }), 8_050_000n);
  // Without image_prompt, image tokens cost the prompt price.
  assert.equal(
    charge({ prompt: '0.000005', completion: '0.00004' }, task(), 1, {}, { input: 50, imageInputTokens: 40, output: 100 }),
    4_250_000n,
  );
});

test('the hold is the worst case for n images: the dearest price a side left open can reach, n × max tokens per image', () => {
  const model = { id: 'a/m' } as ModelInfo;
  const hold = (pricing: PricingSpec, t: ImageTask, prompt: number, max?: number): bigint => {
    const req: CanonicalRequest = { models: [], messages: [], sampling: {}, stream: false, extra: {}, task: t };
    return worstCaseCost(req, [{ model, endpoint: endpoint(pricing, max) }], prompt);
  };
  assert.equal(hold(DALL_E_3, task(), 0), 120_000_000n);
  assert.equal(hold(DALL_E_3, task({ size: '1024x1024' }), 0), 80_000_000n);
  assert.equal(hold(DALL_E_3, task({ size: '1024x1024', quality: 'standard' }), 0), 40_000_000n);
  assert.equal(hold(DALL_E_3, task({ n: 3, quality: 'standard' }), 0), 240_000_000n);
  // gpt-image: 3 × 6,240 output tokens × $40/M + 20 prompt tokens × $10/M (the dearer input price).
  assert.equal(hold(GPT_IMAGE, task({ n: 3 }), 20, 6_240), 3n * 6_240n * 40_000n + 20n * 10_000n);
  // No max_output_tokens on the endpoint: 8,192 tokens an image are held.
  assert.equal(hold(GPT_IMAGE, task({ n: 2 }), 0), 2n * 8_192n * 40_000n);
});
