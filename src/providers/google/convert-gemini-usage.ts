import type { Usage } from '../../canonical/usage.ts';
import type { GeminiUsageWire } from './gemini-wire-types.ts';

/**
 * Gemini's usage in the canonical meaning. `promptTokenCount` already includes cached
 * tokens, but tool-use prompt tokens (built-in tools) are counted apart and are input too;
 * `candidatesTokenCount` excludes thoughts, which are output (and billed as such).
 */
export function convertGeminiUsage(usage: GeminiUsageWire): Usage {
  const thoughts = count(usage.thoughtsTokenCount);
  const result: Usage = {
    input: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
    cacheRead: count(usage.cachedContentTokenCount),
    cacheWrite: 0,
    output: count(usage.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
    raw: usage,
  };
  const audio = modalityCount(usage.promptTokensDetails, 'AUDIO');
  if (audio > 0) result.audioInput = audio;
  const audioOut = modalityCount(usage.candidatesTokensDetails, 'AUDIO');
  if (audioOut > 0) result.audioOutput = audioOut;
  return result;
}

function modalityCount(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  let n = 0;
  for (const d of details) {
    if (typeof d === 'object' && d !== null && (d as { modality?: unknown }).modality === modality)
      n += count((d as { tokenCount?: unknown }).tokenCount);
  }
  return n;
}

function count(value: unknown): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? Math.floor(value) : 0;
}
