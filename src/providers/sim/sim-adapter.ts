import type { RequestParameter } from '../../canonical/request.ts';
// The built-in simulated provider (`kind: sim`). It makes every endpoint usable on a fresh
// machine with no credentials, and gives tests and benchmarks an upstream that costs
// nothing. Answers are deterministic: the same request always gets the same parts.
//
// What it answers (details in the files named):
// - text echoing the last user message, or summing up tool results (generate-sim-text.ts);
// - tool calls whose arguments fit the tool's schema (choose-sim-tools.ts has the rule for
//   when, generate-value-for-schema.ts builds the arguments);
// - JSON fitting `responseFormat`; reasoning with a signature when reasoning is on
//   (generate-sim-reasoning.ts);
// - within `maxOutputTokens` and `stop` (limit-sim-output.ts), at the pace set by the
//   provider options `chunk_delay_ms` and `first_chunk_delay_ms` (pace-sim-stream.ts).
//
// Test hooks: a marker anywhere in the last user message changes the answer.
// - `[sim:error]`           fails at once with a retryable `provider_error` and no output,
//                           like an upstream 5xx: routing may fall back.
// - `[sim:error-midstream]` streams about half the answer, then fails with a
//                           `provider_error` (no finish, no usage): a connection lost
//                           after the first byte.
// - `[sim:length]`          cuts the answer to half its tokens and finishes with `length`,
//                           as if max_tokens had been hit.

import { estimateRequestTokens } from '../../canonical/estimate-tokens.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { LocalProviderAdapter, PartSink } from '../types.ts';
import { buildSimParts } from './build-sim-parts.ts';
import { chooseSimTools } from './choose-sim-tools.ts';
import { fingerprintSimRequest, signSimReasoning } from './fingerprint-sim-request.ts';
import { generateSimReasoning, isSimReasoningOn } from './generate-sim-reasoning.ts';
import { generateSimText } from './generate-sim-text.ts';
import { simTaskParts } from './sim-tasks.ts';
import { generateValueForSchema } from './generate-value-for-schema.ts';
import { estimateDraftTokens, limitSimOutput, type SimDraft } from './limit-sim-output.ts';
import { paceSimStream, readSimPace } from './pace-sim-stream.ts';
import { readSimConversation } from './read-sim-conversation.ts';

const HOOK_ERROR = '[sim:error]';
const HOOK_ERROR_MIDSTREAM = '[sim:error-midstream]';
const HOOK_LENGTH = '[sim:length]';

/**
 * The sim accepts every sampling parameter and ignores it (answers are deterministic);
 * the rest it honours. It produces no audio, so `modalities` and `audio` are not listed.
 */
const SUPPORTED_PARAMETERS: ReadonlySet<RequestParameter> = new Set<RequestParameter>([
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'top_a',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'seed',
  'logit_bias',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'structured_outputs',
  'reasoning',
  'include_reasoning',
  'prompt_cache_key',
  'user',
]);

export const simAdapter: LocalProviderAdapter = {
  kind: 'sim',
  transport: 'local',
  supportedParameters: SUPPORTED_PARAMETERS,
  generate: generateSimAnswer,
};

async function generateSimAnswer(req: CanonicalRequest, endpoint: Endpoint, emit: PartSink, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  if (req.task !== undefined) {
    for (const part of simTaskParts(req, req.task, endpoint)) emit(part);
    return;
  }
  return paceSimStream(planSimParts(req, endpoint), emit, signal, readSimPace(endpoint.provider.options));
}

/** The whole answer as stream parts, worked out before the first one is emitted. */
export function planSimParts(req: CanonicalRequest, endpoint: Endpoint): StreamPart[] {
  const conversation = readSimConversation(req);
  const said = conversation.lastUserText;
  if (said.includes(HOOK_ERROR)) return [{ type: 'error', error: simError(endpoint, HOOK_ERROR) }];

  const fingerprint = fingerprintSimRequest(req, endpoint);
  const tools = chooseSimTools(req, conversation);
  const draft: SimDraft = {
    reasoning: isSimReasoningOn(req.reasoning) ? generateSimReasoning(req.reasoning!, conversation, tools, req.responseFormat) : '',
    text: tools.length > 0 ? '' : generateSimText(conversation, req.responseFormat, fingerprint),
    toolCalls: tools.map((tool, i) => ({
      // Numbered after the calls already in the conversation, so ids never repeat across turns.
      id: `call_sim_${conversation.priorToolCalls + i + 1}`,
      name: tool.name,
      arguments: JSON.stringify(generateValueForSchema(tool.parameters)),
    })),
  };

  let budget = Math.min(req.maxOutputTokens ?? Infinity, endpoint.maxOutputTokens ?? Infinity);
  if (said.includes(HOOK_LENGTH)) budget = Math.min(budget, Math.max(1, Math.floor(estimateDraftTokens(draft) / 2)));
  const output = limitSimOutput(draft, req.stop, budget);
  const parts = buildSimParts(output, {
    id: `sim-${fingerprint.toString('hex', 0, 12)}`,
    model: endpoint.upstreamModel,
    signature: draft.reasoning === '' ? '' : signSimReasoning(fingerprint, draft.reasoning),
    inputTokens: estimateRequestTokens(req),
  });
  return said.includes(HOOK_ERROR_MIDSTREAM) ? failMidstream(parts, endpoint) : parts;
}

/** Keeps `stream-start` and the first half of the content, then fails in place of finish and usage. */
function failMidstream(parts: StreamPart[], endpoint: Endpoint): StreamPart[] {
  const content = parts.slice(1, parts.length - 2);
  const kept = content.slice(0, Math.max(1, Math.ceil(content.length / 2)));
  return [parts[0]!, ...kept, { type: 'error', error: simError(endpoint, HOOK_ERROR_MIDSTREAM) }];
}

function simError(endpoint: Endpoint, hook: string): GatewayError {
  return new GatewayError('provider_error', `Simulated provider error: the last user message contains ${hook}.`, {
    metadata: { provider_name: endpoint.provider.id, raw: hook },
  });
}
