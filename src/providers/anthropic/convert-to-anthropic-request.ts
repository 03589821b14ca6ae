import type { CanonicalRequest, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { UpstreamRequest } from '../types.ts';
import type { AnthropicMessage, AnthropicRequestBody, AnthropicTool, AnthropicToolChoice } from './anthropic-wire-types.ts';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.ts';
import { planAnthropicOutput } from './plan-anthropic-thinking.ts';

/** The version whose wire this adapter speaks; `2026-10-21` drops temperature, top_p and top_k. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** Thinking between tool calls; the spec turns it on when reasoning meets tools under `auto`. */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

/** Anthropic has no JSON mode; `json_object` is asked for in words, after the caller's system prompt. */
export const JSON_OBJECT_INSTRUCTION = 'Respond with a single valid JSON object and nothing else: no prose, no code fences.';

/** Anthropic's temperature range is 0 to 1; the gateway's dialects allow up to 2. */
const MAX_TEMPERATURE = 1;
/** With thinking on, Anthropic accepts top_p only from 0.95 to 1. */
const MIN_TOP_P_WITH_THINKING = 0.95;

export function convertToAnthropicRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const provider = endpoint.provider;
  const body = buildAnthropicBody(req, endpoint);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) headers['x-api-key'] = provider.apiKey;
  // Operator headers last (a proxy's own auth header, extra betas); betas add up.
  const operatorBeta = provider.headers?.['anthropic-beta'];
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  if (usesInterleavedThinking(body)) {
    headers['anthropic-beta'] =
      operatorBeta === undefined || operatorBeta === '' ? INTERLEAVED_THINKING_BETA : `${operatorBeta},${INTERLEAVED_THINKING_BETA}`;
  }
  return { url: messagesUrl(provider.baseUrl), headers, body: JSON.stringify(body) };
}

/** The body as an object; absent canonical fields stay absent, unsupported ones are dropped. */
export function buildAnthropicBody(req: CanonicalRequest, endpoint: Endpoint): AnthropicRequestBody {
  const accepts = endpoint.supportedParameters;
  const conversation = convertToAnthropicMessages(req.messages);
  const reasoning = accepts.has('reasoning') && canThink(conversation.messages) ? req.reasoning : undefined;
  const plan = planAnthropicOutput(accepts.has('max_tokens') ? req.maxOutputTokens : undefined, endpoint.maxOutputTokens, reasoning);
  const thinking = plan.budget !== null;

  const body: AnthropicRequestBody = { model: endpoint.upstreamModel, max_tokens: plan.maxTokens, messages: conversation.messages };
  const system = conversation.system;
  const format = accepts.has('response_format') ? req.responseFormat : undefined;
  if (format?.type === 'json_object') system.push({ type: 'text', text: JSON_OBJECT_INSTRUCTION });
  if (system.length > 0) body.system = system;
  if (plan.budget !== null) {
    body.thinking = { type: 'enabled', budget_tokens: plan.budget };
    // The client asked not to see the reasoning: Anthropic then returns the blocks with empty
    // text and signatures made for that, so the client can replay them as it got them.
    if (reasoning?.exclude === true) body.thinking.display = 'omitted';
  }

  // Thinking rejects temperature and top_k, and top_p below 0.95. Newer Claude models take
  // temperature or top_p but not both; temperature is the one clients mean.
  const s = req.sampling;
  if (!thinking && s.temperature !== undefined && accepts.has('temperature')) body.temperature = Math.min(s.temperature, MAX_TEMPERATURE);
  if (s.topP !== undefined && accepts.has('top_p') && body.temperature === undefined && (!thinking || s.topP >= MIN_TOP_P_WITH_THINKING))
    body.top_p = s.topP;
  if (!thinking && s.topK !== undefined && accepts.has('top_k')) body.top_k = s.topK;

  if (req.stop !== undefined && accepts.has('stop')) {
    // Anthropic rejects stop sequences made only of whitespace.
    const stops = req.stop.filter((seq) => seq.trim().length > 0);
    if (stops.length > 0) body.stop_sequences = stops;
  }
  if (req.tools !== undefined && req.tools.length > 0 && accepts.has('tools')) {
    body.tools = req.tools.map(convertTool);
    const choice = convertToolChoice(
      accepts.has('tool_choice') ? req.toolChoice : undefined,
      accepts.has('parallel_tool_calls') && req.parallelToolCalls === false,
      thinking,
    );
    if (choice !== undefined) body.tool_choice = choice;
  } else {
    const replayed = toolsOfHistory(conversation.messages);
    if (replayed !== null) {
      body.tools = replayed;
      body.tool_choice = { type: 'none' };
    }
  }
  if (format?.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: format.schema } };
  if (req.user !== undefined && req.user.length > 0 && accepts.has('user')) body.metadata = { user_id: req.user };
  if (req.stream) body.stream = true;
  return body;
}

export function usesInterleavedThinking(body: AnthropicRequestBody): boolean {
  return body.thinking !== undefined && body.tools !== undefined && (body.tool_choice === undefined || body.tool_choice.type === 'auto');
}

/**
 * With thinking on, Anthropic requires the last assistant turn of a tool loop to start with
 * its thinking block. A conversation replayed from a client that never saw one (OpenAI
 * chat drops them) cannot satisfy that, so that request goes without thinking.
 */
function canThink(messages: readonly AnthropicMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const first = m.content[0];
    if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return true;
    return !m.content.some((b) => b.type === 'tool_use');
  }
  return true;
}

/**
 * Anthropic refuses a conversation holding tool_use blocks when the request defines no
 * tools, which OpenAI-style clients do once they are done calling them. The tools the
 * history used are declared again, bare, and the model told not to call any: the request
 * means what the client sent, and Anthropic takes it.
 */
function toolsOfHistory(messages: readonly AnthropicMessage[]): AnthropicTool[] | null {
  let tools: AnthropicTool[] | null = null;
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_use') continue;
      tools ??= [];
      if (!tools.some((t) => t.name === b.name)) tools.push({ name: b.name, input_schema: { type: 'object' } });
    }
  }
  return tools;
}

function convertTool(tool: ToolDefinition): AnthropicTool {
  // Anthropic requires an object schema; clients that send no parameters mean "no arguments".
  const schema = tool.parameters;
  const out: AnthropicTool = { name: tool.name, input_schema: schema.type === undefined ? { type: 'object', ...schema } : schema };
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.strict !== undefined) out.strict = tool.strict;
  if (tool.cacheControl !== undefined) {
    out.cache_control = tool.cacheControl.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: tool.cacheControl.ttl };
  }
  return out;
}

/** Forced choices are dropped under thinking (Anthropic rejects them): the model picks. */
function convertToolChoice(choice: ToolChoice | undefined, noParallel: boolean, thinking: boolean): AnthropicToolChoice | undefined {
  let out: Exclude<AnthropicToolChoice, { type: 'none' }> | undefined;
  if (choice !== undefined) {
    switch (choice.type) {
      case 'auto':
        out = { type: 'auto' };
        break;
      case 'none':
        return { type: 'none' };
      case 'required':
        out = thinking ? { type: 'auto' } : { type: 'any' };
        break;
      case 'tool':
        out = thinking ? { type: 'auto' } : { type: 'tool', name: choice.name };
        break;
      default:
        assertNever(choice);
    }
  }
  if (!noParallel) return out;
  out ??= { type: 'auto' };
  out.disable_parallel_tool_use = true;
  return out;
}

/** `${base}/v1/messages`; a base that already ends in `/v1` is not doubled. */
export function messagesUrl(baseUrl: string): string {
  let end = baseUrl.length;
  while (end > 0 && baseUrl.charCodeAt(end - 1) === 47 /* / */) end--;
  const base = end === baseUrl.length ? baseUrl : baseUrl.slice(0, end);
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}
