import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, type EncodingName } from './bpe-tokenizers.ts';
import { PromptBound, chargedPromptTokens } from './prompt-token-bound.ts';
import { promptTexts, tokenBoundCorpus } from './token-bound-corpus.test-util.ts';

/** The largest a vendor counts one image (or a PDF page read as one): Anthropic at its highest resolution. */
const VENDOR_IMAGE_TOKENS = 4_800;

/** What an upstream counting with `encoding` charges for the prompt, OpenAI's chat framing included. */
function charged(texts: string[], images: number, encoding: EncodingName): number {
  let tokens = 3 + 4 + images * VENDOR_IMAGE_TOKENS;
  for (const t of texts) tokens += countTokens(t, encoding);
  return tokens;
}

for (const entry of tokenBoundCorpus()) {
  test(`hold bound ≥ what o200k_base and cl100k_base upstreams count: ${entry.name}`, () => {
    const bound = new PromptBound(entry.req);
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const charge = charged(promptTexts(entry.req), entry.images, encoding);
      assert.ok(bound.tight() >= charge, `${encoding}: tight bound ${bound.tight()} < charge ${charge}`);
      assert.ok(bound.cheap >= charge, `${encoding}: byte bound ${bound.cheap} < charge ${charge}`);
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
