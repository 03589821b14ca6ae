import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeCost } from './compute-cost.ts';
import { compilePricing } from '../money/pricing.ts';
import { worstCaseCost } from './worst-case-cost.ts';
import type { Endpoint, ModelInfo } from '../catalog/types.ts';
import { countTokens, type EncodingName } from '../canonical/bpe-tokenizers.ts';
import { PromptBound, chargedPromptTokens } from '../canonical/prompt-token-bound.ts';
import { promptTexts, tokenBoundCorpus } from '../canonical/token-bound-corpus.test-util.ts';

/** The largest a vendor counts one image (or a PDF page read as one): Anthropic at its highest resolution. */
const VENDOR_IMAGE_TOKENS = 4_800;

/** What an upstream counting with `encoding` charges for the prompt, OpenAI's chat framing included. */
function charged(texts: string[], images: number, encoding: EncodingName): number {
  let tokens = 3 + 4 + images * VENDOR_IMAGE_TOKENS;
  for (const t of texts) tokens += countTokens(t, encoding);
  return tokens;
}

/** An endpoint at $3 / $15 per million tokens with a 1M context, as a large vendor model. */
const PRICING = { prompt: '0.000003', completion: '0.000015' };
const ENDPOINT = {
  id: 'v/m',
  modelId: 'v/m',
  upstreamModel: 'm',
  pricing: PRICING,
  compiledPricing: compilePricing(PRICING, 'none'),
  contextLength: 1_000_000,
  dataCollection: 'allow',
  zdr: false,
  supportedParameters: new Set(),
  provider: { id: 'v', kind: 'openai', name: 'v', baseUrl: 'http://x', timeoutMs: 1, cacheFamily: 'none' },
} as Endpoint;
const PLAN = [{ model: { id: 'v/m' } as ModelInfo, endpoint: ENDPOINT }];

for (const entry of tokenBoundCorpus()) {
  test(`hold ≥ charge when the upstream counts with o200k_base and with cl100k_base: ${entry.name}`, () => {
    const bound = new PromptBound(entry.req);
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const input = charged(promptTexts(entry.req), entry.images, encoding);
      assert.ok(bound.tight() >= input, `${encoding}: tight bound ${bound.tight()} < charged prompt ${input}`);
      assert.ok(bound.cheap >= input, `${encoding}: byte bound ${bound.cheap} < charged prompt ${input}`);
      // In money: the request allows one output token, and the upstream writes it.
      const charge = computeCost({ input, cacheRead: 0, cacheWrite: 0, output: 1, reasoning: 0 }, ENDPOINT.compiledPricing).totalNanos;
      for (const held of [worstCaseCost(entry.req, PLAN, bound.tight()), worstCaseCost(entry.req, PLAN, bound.cheap)]) {
        assert.ok(held >= charge, `${encoding}: hold ${held} < charge ${charge}`);
      }
    }
  });
}

test('the tight bound is never above the byte bound, and far below it on English', () => {
  for (const entry of tokenBoundCorpus()) {
    const bound = new PromptBound(entry.req);
    assert.ok(bound.tight() <= bound.cheap, `${entry.name}: ${bound.tight()} > ${bound.cheap}`);
  }
  const english = tokenBoundCorpus().find((e) => e.name === 'English prose')!;
  const bound = new PromptBound(english.req);
  assert.ok(bound.tight() * 2 < bound.cheap, `${bound.tight()} vs ${bound.cheap}`);
});

test('a prompt the upstream did not count is charged its o200k_base count with the chat framing', () => {
  const req = tokenBoundCorpus().find((e) => e.name === 'Hangul jamo')!.req;
  assert.equal(chargedPromptTokens(req), 36_007);
});

test('a hostile PDF of endless /Count entries is bounded in linear time (the page scan cannot go quadratic)', { timeout: 30_000 }, () => {
  // 3.6 MB of "/Count 1 " with no dictionary end: an unbounded lazy scan took minutes.
  const data = Buffer.from('/Count 1 '.repeat(400_000)).toString('base64');
  const req = {
    models: [],
    messages: [{ role: 'user', content: [{ type: 'file', data, mediaType: 'application/pdf' }] }],
    stream: false,
  } as never;
  const bound = new PromptBound(req);
  assert.ok(bound.tight() > 0);
  assert.ok(bound.tight() <= bound.cheap);
});
