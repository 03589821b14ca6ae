import type { Usage } from '../../canonical/usage.ts';
import type { AnthropicUsageWire } from './anthropic-wire-types.ts';

/**
 * Anthropic's `input_tokens` excludes the cache reads and writes (reference §2, §7), while
 * the canonical `input` is the whole prompt: the three are summed. `output_tokens` already
 * includes thinking; `output_tokens_details.thinking_tokens` is its breakdown, when sent.
 */
export function convertAnthropicUsage(usage: AnthropicUsageWire): Usage {
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const details = usage.output_tokens_details;
  return {
    input: count(usage.input_tokens) + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    output: count(usage.output_tokens),
    reasoning: typeof details === 'object' && details !== null ? count(details.thinking_tokens) : 0,
    raw: usage,
  };
}

/**
 * Stream usage: `message_start` carries the input side and a placeholder output count;
 * each `message_delta` carries cumulative counts, with null or absent for what it does not
 * restate. Later non-null values win.
 */
export function mergeAnthropicUsage(into: AnthropicUsageWire | null, next: unknown): AnthropicUsageWire | null {
  if (typeof next !== 'object' || next === null || Array.isArray(next)) return into;
  if (into === null) return { ...(next as AnthropicUsageWire) };
  const src = next as Record<string, unknown>;
  for (const key in src) {
    const value = src[key];
    if (value !== null && value !== undefined) into[key] = value;
  }
  return into;
}

/** Fields may be null or missing; billing needs a non-negative integer. */
function count(value: unknown): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? Math.floor(value) : 0;
}
