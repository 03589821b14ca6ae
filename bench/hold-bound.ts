// Charge/hold ratios of the prompt bound over the hold-bound corpus, before (the heuristic
// estimate × 1.25 + 32) and after (PromptBound), and the cost of computing each bound on
// a typical 1.5 KB and a 50 KB prompt. Run: node bench/hold-bound.ts
import { countTokens } from '../src/canonical/bpe-tokenizers.ts';
import { estimateRequestTokens } from '../src/canonical/estimate-tokens.ts';
import { PromptBound } from '../src/canonical/prompt-token-bound.ts';
import type { CanonicalRequest } from '../src/canonical/request.ts';
import { promptTexts, tokenBoundCorpus } from '../src/canonical/token-bound-corpus.test-util.ts';

const VENDOR_IMAGE_TOKENS = 4_800;
let worstBefore = 0;
let worstAfter = 0;
let worstCheap = 0;
console.log('entry | o200k | cl100k | before hold | ratio | tight hold | ratio | byte hold | ratio');
for (const e of tokenBoundCorpus()) {
  const texts = promptTexts(e.req);
  const charge = (enc: 'o200k_base' | 'cl100k_base'): number =>
    7 + e.images * VENDOR_IMAGE_TOKENS + texts.reduce((n, t) => n + countTokens(t, enc), 0);
  const o = charge('o200k_base');
  const c = charge('cl100k_base');
  const worst = Math.max(o, c);
  const before = Math.ceil(estimateRequestTokens(e.req) * 1.25) + 32;
  const bound = new PromptBound(e.req);
  worstBefore = Math.max(worstBefore, worst / before);
  worstAfter = Math.max(worstAfter, worst / bound.tight());
  worstCheap = Math.max(worstCheap, worst / bound.cheap);
  console.log(
    `${e.name} | ${o} | ${c} | ${before} | ${(worst / before).toFixed(2)} | ${bound.tight()} | ${(worst / bound.tight()).toFixed(2)} | ${bound.cheap} | ${(worst / bound.cheap).toFixed(2)}`,
  );
}
console.log(`max charge/hold: before ${worstBefore.toFixed(2)}, after ${worstAfter.toFixed(2)} (tight), ${worstCheap.toFixed(2)} (bytes)`);

// Cost per request, on prompts that vary (no tokenizer cache hits across runs).
const words = [
  'the',
  'request',
  'function',
  'returns',
  'a',
  'value',
  'when',
  'error',
  'config',
  'of',
  'and',
  'data',
  'user',
  '{',
  '}',
  '();',
  'const',
  'x',
  '=',
  '42',
];
let seed = 7;
const rand = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
function prompt(chars: number): CanonicalRequest {
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    const w = words[Math.floor(rand() * words.length)] + (rand() < 0.1 ? '\n' : ' ');
    parts.push(w);
    n += w.length;
  }
  const s = parts.join(''); // flat, as JSON.parse makes it
  return {
    models: [],
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You are helpful.' }] },
      { role: 'user', content: [{ type: 'text', text: s }] },
    ],
    sampling: {},
    stream: false,
    extra: {},
  };
}
new PromptBound(prompt(100)).tight(); // load the encodings
for (const size of [1_500, 50_000]) {
  const reqs = Array.from({ length: 50 }, () => prompt(size));
  let t = performance.now();
  for (const r of reqs) void new PromptBound(r).cheap;
  const cheap = (performance.now() - t) / reqs.length;
  t = performance.now();
  for (const r of reqs) new PromptBound(r).tight();
  const tight = (performance.now() - t) / reqs.length;
  t = performance.now();
  for (const r of reqs) estimateRequestTokens(r);
  const heuristic = (performance.now() - t) / reqs.length;
  console.log(
    `${size} chars: byte bound ${(cheap * 1000).toFixed(1)} µs, tokenizer bound ${(tight * 1000).toFixed(0)} µs, heuristic estimate ${(heuristic * 1000).toFixed(1)} µs per request`,
  );
}
