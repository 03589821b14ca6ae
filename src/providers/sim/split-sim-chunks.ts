import { estimateTextTokens } from '../../canonical/estimate-tokens.ts';

/** Long whitespace-free runs (compact JSON, URLs) are streamed in pieces of this many characters. */
const MAX_CHUNK_CHARS = 16;

/**
 * Splits text into word-sized stream chunks: each word with the whitespace before it, long
 * runs cut every 16 characters. Cutting a prefix of the chunks and splitting it again gives
 * the same chunks, so truncated output streams exactly as it was measured.
 */
export function splitWords(text: string): string[] {
  const chunks: string[] = [];
  let start = 0;
  let i = 0;
  const len = text.length;
  while (i < len) {
    while (i < len && isSpace(text.charCodeAt(i))) i++;
    let wordStart = i;
    while (i < len && !isSpace(text.charCodeAt(i))) {
      i++;
      if (i - wordStart >= MAX_CHUNK_CHARS && i < len && !isSpace(text.charCodeAt(i)) && !isLowSurrogate(text.charCodeAt(i))) {
        chunks.push(text.slice(start, i));
        start = i;
        wordStart = i;
      }
    }
    if (wordStart < i) {
      chunks.push(text.slice(start, i));
      start = i;
    }
  }
  // Trailing whitespace rides on the last chunk rather than streaming on its own.
  if (start < len) {
    if (chunks.length === 0) chunks.push(text.slice(start));
    else chunks[chunks.length - 1] += text.slice(start);
  }
  return chunks;
}

/** Splits tool-call arguments into up to `count` fragments, as upstreams stream them. */
export function splitFragments(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

/** How many leading chunks fit in `budget` estimated tokens, and what they cost. */
export function takeWithinBudget(chunks: readonly string[], budget: number): { count: number; tokens: number } {
  const all = estimateTextTokens(chunks.join(''));
  if (all <= budget) return { count: chunks.length, tokens: all };
  // The estimate never drops as text grows, so the fitting prefixes are a contiguous range.
  let lo = 0;
  let hi = chunks.length - 1;
  let tokens = 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const cost = estimateTextTokens(chunks.slice(0, mid).join(''));
    if (cost <= budget) {
      lo = mid;
      tokens = cost;
    } else hi = mid - 1;
  }
  return { count: lo, tokens: lo === 0 ? 0 : tokens };
}

/** The longest prefix of `text` (by characters) that fits in `budget` estimated tokens. */
export function truncateToBudget(text: string, budget: number): { text: string; tokens: number } {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (estimateTextTokens(text.slice(0, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0 && lo < text.length && isLowSurrogate(text.charCodeAt(lo))) lo--;
  const kept = text.slice(0, lo);
  return { text: kept, tokens: estimateTextTokens(kept) };
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
