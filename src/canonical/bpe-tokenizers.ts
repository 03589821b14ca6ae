import { createRequire } from 'node:module';

// OpenAI's public byte-level BPE encodings (gpt-tokenizer), for holds that must be upper
// bounds and for charges the upstream did not report. Loading both costs ~190 ms and ~45 MB
// of heap (~110 MB of RSS), so they load once, on first use, never per request; the
// serve command does not preload them (most holds fit on the byte bound and never count).
// createRequire keeps the load synchronous: the credit check that needs it runs without
// yielding.

interface Encoding {
  countTokens(text: string, options: { allowedSpecial: Set<string>; disallowedSpecial: Set<string> }): number;
}

/** Special-token text (`<|endoftext|>`) in a prompt is plain text to the vendor. */
const PLAIN = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);
let o200k: Encoding | null = null;
let cl100k: Encoding | null = null;

function o200kBase(): Encoding {
  o200k ??= require('gpt-tokenizer/encoding/o200k_base') as Encoding;
  return o200k;
}

function cl100kBase(): Encoding {
  cl100k ??= require('gpt-tokenizer/encoding/cl100k_base') as Encoding;
  return cl100k;
}

export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Tokens of `text` in one encoding (special-token text counted as plain text). */
export function countTokens(text: string, encoding: EncodingName): number {
  if (text.length === 0) return 0;
  const enc = encoding === 'o200k_base' ? o200kBase() : cl100kBase();
  return enc.countTokens(text, PLAIN);
}

/** The larger of the o200k_base and cl100k_base counts. */
export function countTokensMax(text: string): number {
  if (text.length === 0) return 0;
  return Math.max(countTokens(text, 'o200k_base'), countTokens(text, 'cl100k_base'));
}

/** Loads both encodings now (for a caller that would rather pay at start than in a request). */
export function preloadTokenizers(): void {
  o200kBase();
  cl100kBase();
}
