import type { CanonicalRequest, RequestParameter } from '../canonical/request.ts';

// Which request parameters (chat-table names, the names endpoints list in
// `supported_parameters`) a request actually uses: what `require_parameters` checks.
// `user` and `prompt_cache_key` are left out on purpose: an endpoint that drops them
// answers the same, so they must not narrow routing.

/** The parameters `req` uses, each once, in a fixed order. */
export function requestParameters(req: CanonicalRequest): RequestParameter[] {
  const out: RequestParameter[] = [];
  const s = req.sampling;
  if (s.temperature !== undefined) out.push('temperature');
  if (s.topP !== undefined) out.push('top_p');
  if (s.topK !== undefined) out.push('top_k');
  if (s.minP !== undefined) out.push('min_p');
  if (s.topA !== undefined) out.push('top_a');
  if (s.frequencyPenalty !== undefined) out.push('frequency_penalty');
  if (s.presencePenalty !== undefined) out.push('presence_penalty');
  if (s.repetitionPenalty !== undefined) out.push('repetition_penalty');
  if (s.seed !== undefined) out.push('seed');
  if (s.logitBias !== undefined) out.push('logit_bias');
  if (req.maxOutputTokens !== undefined) out.push('max_tokens');
  if (req.stop !== undefined && req.stop.length > 0) out.push('stop');
  if (req.tools !== undefined && req.tools.length > 0) out.push('tools');
  if (req.toolChoice !== undefined) out.push('tool_choice');
  if (req.parallelToolCalls !== undefined) out.push('parallel_tool_calls');
  const format = req.responseFormat;
  if (format !== undefined && format.type !== 'text') {
    out.push('response_format');
    if (format.type === 'json_schema') out.push('structured_outputs');
  }
  if (req.reasoning !== undefined) out.push('reasoning');
  if (req.modalities !== undefined) out.push('modalities');
  if (req.audio !== undefined) out.push('audio');
  return out;
}

/**
 * The parameters an endpoint should support even without `require_parameters`: one that
 * drops tools or the response format gives a different kind of answer, so such endpoints
 * are tried only after those that support them.
 */
const PREFERRED: ReadonlySet<string> = new Set<RequestParameter>(['tools', 'response_format', 'structured_outputs']);

export function preferredParameters(used: readonly RequestParameter[]): RequestParameter[] {
  const out: RequestParameter[] = [];
  for (const p of used) if (PREFERRED.has(p)) out.push(p);
  return out;
}

/** The parameters of `wanted` that `supported` lacks (empty when it has them all). */
export function missingParameters(wanted: readonly string[], supported: ReadonlySet<string>): readonly string[] {
  let missing: string[] | null = null;
  for (const p of wanted) {
    if (!supported.has(p)) (missing ??= []).push(p);
  }
  return missing ?? NONE;
}

const NONE: readonly string[] = Object.freeze([]);
