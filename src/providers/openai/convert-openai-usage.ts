import type { Usage } from '../../canonical/usage.ts';
import type { OpenAIUsageWire } from './openai-chat-wire-types.ts';

/**
 * OpenAI's `prompt_tokens` already includes cached tokens and `completion_tokens` already
 * includes reasoning tokens, which is the canonical meaning: no arithmetic, just renaming.
 */
export function convertOpenAIUsage(usage: OpenAIUsageWire): Usage {
  const prompt = usage.prompt_tokens_details;
  const completion = usage.completion_tokens_details;
  const result: Usage = {
    input: count(usage.prompt_tokens),
    cacheRead: count(prompt?.cached_tokens ?? usage.prompt_cache_hit_tokens),
    cacheWrite: count(prompt?.cache_write_tokens),
    output: count(usage.completion_tokens),
    reasoning: count(completion?.reasoning_tokens),
    raw: usage,
  };
  const audioIn = count(prompt?.audio_tokens);
  if (audioIn > 0) result.audioInput = audioIn;
  const audioOut = count(completion?.audio_tokens);
  if (audioOut > 0) result.audioOutput = audioOut;
  return result;
}

/** Compatible servers may send null or leave fields out; billing needs a non-negative integer. */
function count(value: unknown): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? Math.floor(value) : 0;
}
