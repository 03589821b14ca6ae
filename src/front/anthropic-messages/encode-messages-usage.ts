import type { Usage } from '../../canonical/usage.ts';

// Canonical usage → Anthropic's `usage`. Anthropic's `input_tokens` excludes cache reads
// and writes (the total input is the sum of the three), while the canonical `input`
// includes them, so they are taken out here. Thinking is inside `output_tokens`;
// `output_tokens_details.thinking_tokens` breaks it out when there was any. `cost` (USD)
// is the gateway's, as on the other endpoints, when billing has settled it; the Anthropic
// SDKs keep fields they do not know.

export interface MessagesUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
  /** Web searches the gateway ran (Anthropic's own field for its web search tool). */
  server_tool_use?: { web_search_requests: number };
  cost?: number;
}

/** `estimatedInput` stands in for the input when the upstream reported no usage. */
export function encodeMessagesUsage(usage: Usage | null, estimatedInput: number, cost?: number): MessagesUsage {
  let out: MessagesUsage;
  if (usage === null) {
    out = { input_tokens: estimatedInput, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  } else {
    out = {
      input_tokens: Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite),
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    };
    if (usage.reasoning > 0) out.output_tokens_details = { thinking_tokens: usage.reasoning };
    if (usage.webSearchRequests !== undefined) out.server_tool_use = { web_search_requests: usage.webSearchRequests };
  }
  if (cost !== undefined) out.cost = cost;
  return out;
}
