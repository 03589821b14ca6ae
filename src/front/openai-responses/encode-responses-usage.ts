import type { Usage } from '../../canonical/usage.ts';

// Canonical usage → the response's `usage`: the vendor's fields, which the official
// clients and Codex read (`input_tokens` includes cached tokens, `output_tokens` includes
// reasoning, as in canonical usage, so no conversion), plus the spec's
// `prompt_tokens`/`completion_tokens` and flat cache fields, and `cost` in USD when known.
// Codex parses `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`
// as integers, so the details are always present, zeros when usage is unknown.

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Web searches the gateway ran. */
  server_tool_use?: { web_search_requests: number };
  cost?: number;
}

export function encodeResponsesUsage(usage: Usage | null, cost: number | undefined): ResponsesUsage {
  let out: ResponsesUsage;
  if (usage === null) {
    out = {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
    };
  } else {
    const total = usage.input + usage.output;
    out = {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning },
      total_tokens: total,
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheWrite,
    };
    if (usage.webSearchRequests !== undefined) out.server_tool_use = { web_search_requests: usage.webSearchRequests };
  }
  if (cost !== undefined) out.cost = cost;
  return out;
}
