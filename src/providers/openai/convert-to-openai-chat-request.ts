import type { CanonicalRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { UpstreamRequest } from '../types.ts';
import { convertToOpenAIChatMessages } from './convert-to-openai-chat-messages.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import type {
  OpenAIChatRequestBody, OpenAIChatResponseFormat, OpenAIChatTool, OpenAIChatToolChoice,
} from './openai-chat-wire-types.ts';

const STREAM_OPTIONS = { include_usage: true } as const;

export function convertToOpenAIChatRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const provider = endpoint.provider;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) headers.authorization = `Bearer ${provider.apiKey}`;
  // Operator headers last, so a vendor needing another auth header (Azure's `api-key`) can set it.
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  return {
    url: `${stripTrailingSlash(provider.baseUrl)}/chat/completions`,
    headers,
    body: JSON.stringify(buildOpenAIChatBody(req, endpoint)),
  };
}

/** The body as an object; absent canonical fields stay absent, unsupported ones are dropped. */
export function buildOpenAIChatBody(req: CanonicalRequest, endpoint: Endpoint): OpenAIChatRequestBody {
  const profile = openAIProfileFor(endpoint.provider);
  // The endpoint's set is the catalog's word (it may drop more, e.g. temperature on
  // reasoning models); the profile's bounds what this vendor's wire can carry at all.
  const accepts = new ParameterGate(profile.parameters, endpoint.supportedParameters);
  const body: OpenAIChatRequestBody = { model: endpoint.upstreamModel, messages: convertToOpenAIChatMessages(req.messages) };
  const s = req.sampling;
  if (s.temperature !== undefined && accepts.has('temperature')) body.temperature = s.temperature;
  if (s.topP !== undefined && accepts.has('top_p')) body.top_p = s.topP;
  if (s.topK !== undefined && accepts.has('top_k')) body.top_k = s.topK;
  if (s.minP !== undefined && accepts.has('min_p')) body.min_p = s.minP;
  if (s.topA !== undefined && accepts.has('top_a')) body.top_a = s.topA;
  if (s.frequencyPenalty !== undefined && accepts.has('frequency_penalty')) body.frequency_penalty = s.frequencyPenalty;
  if (s.presencePenalty !== undefined && accepts.has('presence_penalty')) body.presence_penalty = s.presencePenalty;
  if (s.repetitionPenalty !== undefined && accepts.has('repetition_penalty')) body.repetition_penalty = s.repetitionPenalty;
  if (s.seed !== undefined && accepts.has('seed')) body.seed = s.seed;
  if (s.logitBias !== undefined && accepts.has('logit_bias')) body.logit_bias = s.logitBias;
  if (req.maxOutputTokens !== undefined && accepts.has('max_tokens')) body[profile.maxTokensField] = req.maxOutputTokens;
  if (req.stop !== undefined && req.stop.length > 0 && accepts.has('stop')) body.stop = req.stop;
  if (req.tools !== undefined && req.tools.length > 0 && accepts.has('tools')) body.tools = req.tools.map(convertTool);
  if (req.toolChoice !== undefined && accepts.has('tool_choice')) body.tool_choice = convertToolChoice(req.toolChoice);
  if (req.parallelToolCalls !== undefined && accepts.has('parallel_tool_calls')) body.parallel_tool_calls = req.parallelToolCalls;
  if (req.responseFormat !== undefined && accepts.has('response_format')) body.response_format = convertResponseFormat(req.responseFormat);
  // Only the effort has a chat-completions field; a token budget has none and is dropped.
  if (req.reasoning?.effort !== undefined && accepts.has('reasoning')) body.reasoning_effort = req.reasoning.effort;
  if (req.user !== undefined && accepts.has('user')) body.user = req.user;
  if (req.promptCacheKey !== undefined && accepts.has('prompt_cache_key')) body.prompt_cache_key = req.promptCacheKey;
  if (req.modalities !== undefined && accepts.has('modalities')) body.modalities = req.modalities;
  if (req.audio !== undefined && accepts.has('audio')) body.audio = req.audio;
  if (profile.passThrough.size > 0) {
    for (const key of profile.passThrough) {
      const value = req.extra[key];
      if (value !== undefined) body[key] = value;
    }
  }
  if (req.stream) {
    body.stream = true;
    // Without this most servers never report usage for a stream, and billing needs it.
    body.stream_options = STREAM_OPTIONS;
  }
  return body;
}

class ParameterGate {
  private readonly profile: ReadonlySet<string>;
  private readonly endpoint: ReadonlySet<string>;
  constructor(profile: ReadonlySet<string>, endpoint: ReadonlySet<string>) {
    this.profile = profile;
    this.endpoint = endpoint;
  }
  has(name: string): boolean {
    return this.profile.has(name) && this.endpoint.has(name);
  }
}

function convertTool(tool: ToolDefinition): OpenAIChatTool {
  const fn: OpenAIChatTool['function'] = { name: tool.name, parameters: tool.parameters };
  if (tool.description !== undefined) fn.description = tool.description;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function convertToolChoice(choice: ToolChoice): OpenAIChatToolChoice {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

function convertResponseFormat(format: ResponseFormat): OpenAIChatResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  const jsonSchema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string } = {
    name: format.name,
    schema: format.schema,
  };
  if (format.strict !== undefined) jsonSchema.strict = format.strict;
  if (format.description !== undefined) jsonSchema.description = format.description;
  return { type: 'json_schema', json_schema: jsonSchema };
}

function stripTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === url.length ? url : url.slice(0, end);
}
