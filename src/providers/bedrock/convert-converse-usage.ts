import type { Usage } from '../../canonical/usage.ts';
import type { ConverseUsageWire } from './bedrock-wire-types.ts';

/**
 * Converse's `inputTokens` excludes the tokens read from and written to the cache (its
 * `totalTokens` is the four summed), while the canonical `input` is the whole prompt: the
 * three are added. `outputTokens` includes any reasoning; Converse gives no breakdown.
 */
export function convertConverseUsage(usage: ConverseUsageWire): Usage {
  const cacheRead = count(usage.cacheReadInputTokens);
  const cacheWrite = count(usage.cacheWriteInputTokens);
  return {
    input: count(usage.inputTokens) + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    output: count(usage.outputTokens),
    reasoning: 0,
    raw: usage,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? Math.floor(value) : 0;
}
