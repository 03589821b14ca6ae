import type { CanonicalRequest, ReasoningConfig } from '../../canonical/request.ts';
import { decodeResponsesMcp } from './decode-responses-mcp.ts';
import { GatewayError, invalidParameter } from '../../errors/gateway-error.ts';
import { checkToolChoice } from '../shared/check-tool-choice.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { checkReasoningConflicts, decodeReasoning, isReasoningEnabled } from '../shared/decode-reasoning.ts';
import { decodeSampling } from '../shared/decode-sampling.ts';
import { decodeStop } from '../shared/decode-stop.ts';
import {
  invalidValue,
  isObject,
  missingParameter,
  pickFields,
  readBoolean,
  readEnumArray,
  readNumber,
  readObject,
  readString,
  readStringArray,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';
import { readEndUser, readMetadata } from '../shared/decode-client-strings.ts';
import { decodeResponsesInput } from './decode-responses-input.ts';
import {
  decodeResponsesFormat,
  decodeResponsesToolChoice,
  decodeResponsesTools,
  responsesToolChoiceRule,
} from './decode-responses-tools.ts';
import { rememberEcho } from './responses-echo.ts';

// The body of POST /v1/responses → CanonicalRequest, validated per the spec's responses
// request table and the vendor's request shape. Fields the client did not set stay
// absent; unknown fields are ignored. The endpoint is stateless: whatever asks for stored
// state (`previous_response_id`, `store: true`, `conversation`, `background`, stored
// `prompt` templates) is a clear 400 rather than a silently different answer.

const MAX_TOKENS: NumberRange = { min: 1, integer: true };
const MODALITIES: ReadonlySet<string> = new Set(['text', 'audio', 'image']);
const TRUNCATION: ReadonlySet<string> = new Set(['auto', 'disabled']);

/** Provider-specific fields, passed through untouched to providers that accept them. */
const EXTRA_FIELDS = ['service_tier', 'plugins'] as const;

export function decodeResponsesRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  rejectStoredState(body);

  const instructions = readString(body, 'instructions');
  const input = body.input;
  if (input === undefined || input === null) throw missingParameter('input', 'must be a string or an array of input items');
  const decoded = decodeResponsesInput(input, instructions);
  const req: CanonicalRequest = {
    models: decodeModelList(body),
    messages: decoded.messages,
    sampling: decodeSampling(body),
    stream: readBoolean(body, 'stream') ?? false,
    extra: pickFields(body, EXTRA_FIELDS),
  };
  if (decoded.inlinePdfs > 0) req.inlinePdfs = decoded.inlinePdfs;
  // The gateway runs MCP servers' tools itself (docs/tools.md): `mcp` and `{type: 'mcp'}` tools, never passed to a provider.
  const mcp = decodeResponsesMcp(body);
  if (mcp !== undefined) req.mcp = mcp;

  const maxOutputTokens = readNumber(body, 'max_output_tokens', MAX_TOKENS);
  if (maxOutputTokens !== undefined) req.maxOutputTokens = maxOutputTokens;
  const stop = decodeStop(body.stop);
  if (stop !== undefined) req.stop = stop;

  const choice = decodeResponsesToolChoice(body.tool_choice);
  const dropped = new Set<string>();
  let tools = decodeResponsesTools(body.tools, dropped);
  // OpenAI's web search tool (`web_search`, `web_search_preview`, dated): the gateway may run it (docs/tools.md).
  for (const name of dropped) if (name.startsWith('web_search')) req.webSearchTool = true;
  // A forced choice needs the tool it forces (before allowed_tools narrows the list).
  const toolChoice = checkToolChoice(choice?.choice, tools, responsesToolChoiceRule(dropped));
  if (tools !== undefined && choice?.allowed !== undefined) {
    const allowed = choice.allowed;
    tools = tools.filter((t) => allowed.has(t.name));
  }
  const parallelToolCalls = readBoolean(body, 'parallel_tool_calls');
  // Without tools a choice means nothing, and providers reject one sent alone.
  if (tools !== undefined && tools.length > 0) {
    req.tools = tools;
    if (toolChoice !== undefined) req.toolChoice = toolChoice;
    if (parallelToolCalls !== undefined) req.parallelToolCalls = parallelToolCalls;
  }

  const text = readObject(body, 'text');
  // A `configuration_update` in the input is later than the request's own settings; the
  // vendor's `text.format` wins over the spec's `response_format` when both are sent.
  const format =
    decoded.update.format ??
    decodeResponsesFormat(text?.format, 'text.format') ??
    decodeResponsesFormat(body.response_format, 'response_format');
  if (format !== undefined) req.responseFormat = format;
  const verbosity = text === undefined ? undefined : readString(text, 'verbosity', 'text');
  if (verbosity !== undefined) req.extra.verbosity = verbosity;

  let reasoning = decodeResponsesReasoning(body);
  if (decoded.update.effort !== undefined) reasoning = { ...reasoning, effort: decoded.update.effort };
  if (reasoning !== undefined) {
    req.reasoning = reasoning;
    if (isReasoningEnabled(reasoning)) checkReasoningConflicts(req);
  }

  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  const modalities = readEnumArray(body, 'modalities', MODALITIES);
  if (modalities !== undefined) req.modalities = modalities;
  const audio = readObject(body, 'audio');
  if (audio !== undefined) req.audio = audio;
  const promptCacheKey = readString(body, 'prompt_cache_key');
  if (promptCacheKey !== undefined) req.promptCacheKey = promptCacheKey;
  // `safety_identifier` is the newer name OpenAI gives the end-user id.
  const user = readEndUser(body, 'user') ?? readEndUser(body, 'safety_identifier');
  if (user !== undefined) req.user = user;
  const metadata = readMetadata(body, 'metadata');
  if (metadata !== undefined) req.metadata = metadata;
  // Read only to refuse a wrong type; the values change nothing here.
  readStringArray(body, 'include');
  const truncation = readString(body, 'truncation');
  if (truncation !== undefined && !TRUNCATION.has(truncation)) {
    throw invalidValue('truncation', `must be 'auto' or 'disabled', got ${JSON.stringify(truncation)}`);
  }

  rememberEcho(req, {
    instructions: instructions ?? null,
    maxOutputTokens: maxOutputTokens ?? null,
    metadata: metadata ?? {},
    parallelToolCalls: parallelToolCalls ?? true,
    reasoningEffort: reasoning?.effort ?? null,
    reasoningSummary: reasoningSummary(body),
    temperature: req.sampling.temperature ?? null,
    format,
    verbosity: verbosity ?? null,
    toolChoice: req.toolChoice,
    tools: req.tools,
    topP: req.sampling.topP ?? null,
    truncation: truncation ?? 'disabled',
    user: user ?? null,
  });
  return req;
}

const STATELESS = "this endpoint is stateless and keeps no responses or conversations; send the whole conversation in 'input'";

function rejectStoredState(body: JsonObject): void {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw invalidParameter('previous_response_id', `Unsupported parameter 'previous_response_id': ${STATELESS}.`);
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    throw invalidParameter('conversation', `Unsupported parameter 'conversation': ${STATELESS}.`);
  }
  const store = readBoolean(body, 'store');
  if (store === true) {
    throw invalidParameter('store', `Unsupported value for 'store': ${STATELESS}; set 'store' to false or leave it out.`);
  }
  if (readBoolean(body, 'background') === true) {
    throw invalidParameter(
      'background',
      `Unsupported value for 'background': a background response is polled for later, and ${STATELESS}.`,
    );
  }
  // A stored prompt template lives on OpenAI's servers; ignoring it would answer a different request.
  if (isObject(body.prompt)) {
    throw invalidParameter(
      'prompt',
      "Unsupported parameter 'prompt': stored prompt templates are kept by OpenAI, not by this gateway; send the instructions in 'instructions' or 'input'.",
    );
  }
}

/**
 * `reasoning` as in chat (`effort` incl. `minimal`, `max_tokens`, `enabled`, `exclude`).
 * `summary` and `generate_summary` only say how to show reasoning, so a `reasoning` object
 * that sets nothing else (Codex sends `{summary: 'auto'}`) asks for nothing.
 */
function decodeResponsesReasoning(body: JsonObject): ReasoningConfig | undefined {
  const r = decodeReasoning(body, 'reasoning');
  if (r === undefined) return undefined;
  return r.effort === undefined && r.maxTokens === undefined && r.enabled === undefined && r.exclude === undefined ? undefined : r;
}

function reasoningSummary(body: JsonObject): string | null {
  const r = body.reasoning;
  if (!isObject(r)) return null;
  const summary = r.summary ?? r.generate_summary;
  return typeof summary === 'string' ? summary : null;
}
