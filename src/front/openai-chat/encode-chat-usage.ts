import type { Usage } from '../../canonical/usage.ts';

// Canonical usage → the chat `usage` object: OpenAI's fields (prompt tokens include cache
// tokens on both sides, so no conversion) plus the spec's flat optional fields, which are
// only present when usage is known, and `cost` in USD when billing has settled it.

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number; audio_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens?: number };
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  reasoning_tokens?: number;
  audio_tokens?: number;
  /** Web searches the gateway ran (Anthropic's and OpenRouter's name). */
  server_tool_use?: { web_search_requests: number };
  cost?: number;
}

export function encodeChatUsage(usage: Usage | null, cost: number | undefined): ChatUsage {
  let out: ChatUsage;
  if (usage === null) {
    out = {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
  } else {
    out = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
      completion_tokens_details: { reasoning_tokens: usage.reasoning },
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheWrite,
      reasoning_tokens: usage.reasoning,
    };
    if (usage.audioInput !== undefined) out.prompt_tokens_details.audio_tokens = usage.audioInput;
    if (usage.audioOutput !== undefined) out.completion_tokens_details.audio_tokens = usage.audioOutput;
    if (usage.audioInput !== undefined || usage.audioOutput !== undefined) {
      out.audio_tokens = (usage.audioInput ?? 0) + (usage.audioOutput ?? 0);
    }
    if (usage.webSearchRequests !== undefined) out.server_tool_use = { web_search_requests: usage.webSearchRequests };
  }
  if (cost !== undefined) out.cost = cost;
  return out;
}
