import type {
  CanonicalRequest,
  ReasoningConfig,
  RequestParameter,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
} from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { UpstreamRequest } from '../types.ts';
import { bounded, fieldOf, type ParameterTable } from '../parameter-rules.ts';
import { checkUnpricedOption } from '../../config/unpriced-options.ts';
import { schemaJson } from '../../canonical/schema-json.ts';
import { convertToOpenAIChatMessages } from './convert-to-openai-chat-messages.ts';
import { inputKindsFor, openAIProfileFor, type OpenAIProfile } from './openai-profiles.ts';
import { openAIUpstreamHeaders, openAIUpstreamUrl } from './openai-upstream-address.ts';
import type { OpenAIChatRequestBody, OpenAIChatResponseFormat, OpenAIChatTool, OpenAIChatToolChoice } from './openai-chat-wire-types.ts';

const STREAM_OPTIONS = { include_usage: true } as const;

/** What every request to an endpoint shares: its URL and headers, built on its first request, not on each (issue 27). */
interface EndpointWire {
  url: string;
  headers: Readonly<Record<string, string>>;
}

/** By endpoint object: a config reload builds new endpoints, so a changed key or URL is a new entry. */
const wires = new WeakMap<Endpoint, EndpointWire>();

function endpointWire(endpoint: Endpoint): EndpointWire {
  let wire = wires.get(endpoint);
  if (wire !== undefined) return wire;
  const profile = openAIProfileFor(endpoint.provider);
  wire = {
    url: openAIUpstreamUrl(profile, endpoint, 'chat/completions'),
    headers: Object.freeze(openAIUpstreamHeaders(profile, endpoint, 'application/json')),
  };
  wires.set(endpoint, wire);
  return wire;
}

export function convertToOpenAIChatRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const wire = endpointWire(endpoint);
  // A copy: the request's headers are its own (tracing adds a traceparent to its copy).
  return { url: wire.url, headers: { ...wire.headers }, body: encodeOpenAIChatBody(buildOpenAIChatBody(req, endpoint)) };
}

/**
 * The body's JSON text. Tool parameter schemas are not serialized again: their text is the
 * request's one serialization of them (schema-json.ts), spliced in. The same JSON as
 * `JSON.stringify(body)`, with `tools` as the last member.
 */
export function encodeOpenAIChatBody(body: OpenAIChatRequestBody): string {
  const { tools, ...rest } = body;
  if (tools === undefined || tools.length === 0) return JSON.stringify(body);
  let text = '[';
  for (let i = 0; i < tools.length; i++) {
    const { parameters, ...head } = tools[i]!.function;
    // `head` has a name, so its JSON is never `{}`: the schema goes in before its closing brace.
    const headText = JSON.stringify(head);
    const schema = parameters === undefined ? '' : `,"parameters":${schemaJson(parameters)}`;
    text += `${i === 0 ? '' : ','}{"type":${JSON.stringify(tools[i]!.type)},"function":${headText.slice(0, -1)}${schema}}}`;
  }
  // `rest` has a model, so its JSON is never `{}` either.
  return `${JSON.stringify(rest).slice(0, -1)},"tools":${text}]}`;
}

/**
 * The body as an object; absent canonical fields stay absent, and each present one travels
 * as the vendor profile's rule says (passed, renamed, clamped, or dropped).
 */
export function buildOpenAIChatBody(req: CanonicalRequest, endpoint: Endpoint): OpenAIChatRequestBody {
  const profile = openAIProfileFor(endpoint.provider);
  const rules = profile.rules;
  // The endpoint's set is the catalog's word (it may drop more, e.g. temperature on
  // reasoning models); the profile's bounds what this vendor's wire can carry at all.
  const accepts = new ParameterGate(profile.supported, endpoint.supportedParameters);
  const input = { vendor: profile.vendor, kinds: inputKindsFor(profile, endpoint.provider), audioReplay: accepts.has('audio') };
  const body: OpenAIChatRequestBody = { model: endpoint.upstreamModel, messages: convertToOpenAIChatMessages(req.messages, input) };
  const s = req.sampling;
  if (s.temperature !== undefined && accepts.has('temperature')) setNumber(body, rules, 'temperature', s.temperature);
  if (s.topP !== undefined && accepts.has('top_p')) setNumber(body, rules, 'top_p', s.topP);
  if (s.topK !== undefined && accepts.has('top_k')) setNumber(body, rules, 'top_k', s.topK);
  if (s.minP !== undefined && accepts.has('min_p')) setNumber(body, rules, 'min_p', s.minP);
  if (s.topA !== undefined && accepts.has('top_a')) setNumber(body, rules, 'top_a', s.topA);
  if (s.frequencyPenalty !== undefined && accepts.has('frequency_penalty')) setNumber(body, rules, 'frequency_penalty', s.frequencyPenalty);
  if (s.presencePenalty !== undefined && accepts.has('presence_penalty')) setNumber(body, rules, 'presence_penalty', s.presencePenalty);
  if (s.repetitionPenalty !== undefined && accepts.has('repetition_penalty'))
    setNumber(body, rules, 'repetition_penalty', s.repetitionPenalty);
  if (s.seed !== undefined && accepts.has('seed')) setNumber(body, rules, 'seed', s.seed);
  if (s.logitBias !== undefined && accepts.has('logit_bias')) body[fieldOf(rules, 'logit_bias')] = s.logitBias;
  if (req.maxOutputTokens !== undefined && accepts.has('max_tokens')) {
    const limit = endpoint.maxOutputTokens;
    setNumber(body, rules, 'max_tokens', limit !== undefined && req.maxOutputTokens > limit ? limit : req.maxOutputTokens);
  }
  if (req.stop !== undefined && req.stop.length > 0 && accepts.has('stop')) body[fieldOf(rules, 'stop')] = req.stop;
  if (req.tools !== undefined && req.tools.length > 0 && accepts.has('tools')) body.tools = req.tools.map(convertTool);
  if (req.toolChoice !== undefined && accepts.has('tool_choice')) body.tool_choice = convertToolChoice(req.toolChoice);
  if (req.parallelToolCalls !== undefined && accepts.has('parallel_tool_calls')) body.parallel_tool_calls = req.parallelToolCalls;
  if (req.responseFormat !== undefined && accepts.has('response_format')) {
    body.response_format = convertResponseFormat(req.responseFormat, accepts.has('structured_outputs'));
  }
  if (req.reasoning !== undefined && accepts.has('reasoning')) setReasoning(body, profile, req.reasoning);
  if (req.user !== undefined && accepts.has('user')) body[fieldOf(rules, 'user')] = req.user;
  if (req.promptCacheKey !== undefined && accepts.has('prompt_cache_key')) body[fieldOf(rules, 'prompt_cache_key')] = req.promptCacheKey;
  if (req.modalities !== undefined && accepts.has('modalities')) body.modalities = req.modalities;
  if (req.audio !== undefined && accepts.has('audio')) body.audio = req.audio;
  if (profile.passThrough.size > 0) {
    for (const key of profile.passThrough) {
      const value = req.extra[key];
      if (value === undefined) continue;
      checkUnpricedOption(key, value, endpoint.provider);
      body[key] = value;
    }
  }
  if (req.stream) {
    body.stream = true;
    // Without this most servers never report usage for a stream, and billing needs it.
    if (profile.streamOptions) body.stream_options = STREAM_OPTIONS;
  }
  return body;
}

function setNumber(body: OpenAIChatRequestBody, rules: ParameterTable, name: RequestParameter, value: number): void {
  const rule = rules[name];
  body[fieldOf(rules, name)] = rule.action === 'clamp' ? bounded(rule, value) : value;
}

/**
 * `reasoning_effort` (a string) for most vendors; OpenRouter's `reasoning` object, which
 * also carries a token budget and `exclude`. A budget alone has no `reasoning_effort`.
 */
function setReasoning(body: OpenAIChatRequestBody, profile: OpenAIProfile, reasoning: ReasoningConfig): void {
  const field = fieldOf(profile.rules, 'reasoning');
  if (field === 'reasoning') {
    const object: { effort?: string; max_tokens?: number; exclude?: boolean; enabled?: boolean } = {};
    // OpenRouter takes an effort or a budget, not both: the budget is the more precise.
    if (reasoning.maxTokens !== undefined) object.max_tokens = reasoning.maxTokens;
    else if (reasoning.effort !== undefined) object.effort = reasoning.effort;
    if (reasoning.exclude !== undefined) object.exclude = reasoning.exclude;
    if (reasoning.enabled !== undefined) object.enabled = reasoning.enabled;
    body.reasoning = object;
    return;
  }
  if (reasoning.effort !== undefined) {
    const mapped = profile.effortValues === undefined ? reasoning.effort : profile.effortValues[reasoning.effort];
    if (mapped !== undefined && mapped !== null) body[field] = mapped;
  }
  if (profile.includeReasoningField !== undefined) body[profile.includeReasoningField] = reasoning.exclude !== true;
}

class ParameterGate {
  private readonly profile: ReadonlySet<RequestParameter>;
  private readonly endpoint: ReadonlySet<RequestParameter>;
  constructor(profile: ReadonlySet<RequestParameter>, endpoint: ReadonlySet<RequestParameter>) {
    this.profile = profile;
    this.endpoint = endpoint;
  }
  has(name: RequestParameter): boolean {
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

/** A JSON schema goes as JSON mode where the vendor has no schemas: still JSON, and routing prefers endpoints that have them. */
function convertResponseFormat(format: ResponseFormat, schemas: boolean): OpenAIChatResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  if (!schemas) return { type: 'json_object' };
  const jsonSchema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string } = {
    name: format.name,
    schema: format.schema,
  };
  if (format.strict !== undefined) jsonSchema.strict = format.strict;
  if (format.description !== undefined) jsonSchema.description = format.description;
  return { type: 'json_schema', json_schema: jsonSchema };
}
