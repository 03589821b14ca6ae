import type { CanonicalRequest, Message, SamplingParams } from '../../canonical/request.ts';
import { decodeSpecMcp } from '../shared/decode-mcp-servers.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { checkToolChoice } from '../shared/check-tool-choice.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { checkReasoningConflicts, isReasoningEnabled } from '../shared/decode-reasoning.ts';
import { decodeSampling } from '../shared/decode-sampling.ts';
import { decodeStop } from '../shared/decode-stop.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  pickFields,
  readBoolean,
  readEnumArray,
  readNumber,
  readObject,
  readString,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';
import { readEndUser, readMetadata } from '../shared/decode-client-strings.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import type { ContentState } from './decode-chat-content-parts.ts';
import { decodeChatReasoning } from './decode-chat-reasoning.ts';
import { CHAT_TOOL_CHOICE, decodeChatResponseFormat, decodeChatToolChoice, decodeChatTools } from './decode-chat-tools.ts';

// The body of POST /v1/chat/completions → CanonicalRequest, validated per the spec's chat
// request table. Fields the client did not set stay absent; unknown fields are ignored.

const MAX_TOKENS: NumberRange = { min: 1, integer: true };
const MAX_SEARCH_RESULTS: NumberRange = { min: 1, max: 30, integer: true };
const ANY_NUMBER: NumberRange = {};
const MODALITIES: ReadonlySet<string> = new Set(['text', 'audio', 'image']);

/** Provider-specific fields, passed through untouched to providers that accept them. */
const EXTRA_FIELDS = [
  'search_parameters',
  'safe_prompt',
  'raw_mode',
  'deferred',
  'plugins',
  'verbosity',
  'service_tier',
  'prediction',
  'web_search_options',
  'transforms',
] as const;

export function decodeChatRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');

  const content: ContentState = { cacheControlBlocks: 0, inlinePdfs: 0 };
  const messages = decodeMessagesOrPrompt(body, content);
  const sampling = decodeChatSampling(body);
  const req: CanonicalRequest = {
    models: decodeModelList(body),
    messages,
    sampling,
    stream: readBoolean(body, 'stream') ?? false,
    extra: decodeExtra(body),
  };
  if (content.inlinePdfs > 0) req.inlinePdfs = content.inlinePdfs;
  // The gateway runs MCP servers' tools itself (docs/tools.md): never passed to a provider.
  const mcp = decodeSpecMcp(body);
  if (mcp !== undefined) req.mcp = mcp;

  const maxTokens = readNumber(body, 'max_tokens', MAX_TOKENS);
  const maxCompletionTokens = readNumber(body, 'max_completion_tokens', MAX_TOKENS);
  const maxOutputTokens = maxCompletionTokens ?? maxTokens;
  if (maxOutputTokens !== undefined) req.maxOutputTokens = maxOutputTokens;

  const stop = decodeStop(body.stop);
  if (stop !== undefined) req.stop = stop;

  const tools = decodeChatTools(body.tools);
  if (tools !== undefined) req.tools = tools;
  const toolChoice = checkToolChoice(decodeChatToolChoice(body.tool_choice), tools, CHAT_TOOL_CHOICE);
  if (toolChoice !== undefined) req.toolChoice = toolChoice;
  const parallelToolCalls = readBoolean(body, 'parallel_tool_calls');
  if (parallelToolCalls !== undefined) req.parallelToolCalls = parallelToolCalls;
  const responseFormat = decodeChatResponseFormat(body.response_format);
  if (responseFormat !== undefined) req.responseFormat = responseFormat;

  const reasoning = decodeChatReasoning(body);
  if (reasoning !== undefined) {
    req.reasoning = reasoning;
    if (isReasoningEnabled(reasoning)) checkReasoningConflicts(req);
  }

  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  const route = body.route;
  if (route !== undefined && route !== null && route !== 'fallback') {
    throw invalidValue('route', `must be 'fallback', got ${JSON.stringify(route)}`);
  }

  const modalities = readEnumArray(body, 'modalities', MODALITIES);
  if (modalities !== undefined) req.modalities = modalities;
  const audio = readObject(body, 'audio');
  if (audio !== undefined) req.audio = audio;

  const promptCacheKey = readString(body, 'prompt_cache_key');
  if (promptCacheKey !== undefined) req.promptCacheKey = promptCacheKey;
  const user = readEndUser(body, 'user');
  if (user !== undefined) req.user = user;
  const metadata = readMetadata(body, 'metadata');
  if (metadata !== undefined) req.metadata = metadata;
  return req;
}

function decodeMessagesOrPrompt(body: JsonObject, content: ContentState): Message[] {
  const raw = body.messages;
  if (raw === undefined || raw === null) {
    const prompt = body.prompt;
    if (typeof prompt === 'string') return [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
    if (prompt !== undefined && prompt !== null) throw invalidType('prompt', 'a string', prompt);
    throw missingParameter('messages', 'must be an array of at least 1 message');
  }
  if (!Array.isArray(raw)) throw invalidType('messages', 'an array of messages', raw);
  if (raw.length === 0) throw invalidValue('messages', 'must contain at least 1 message');
  return decodeChatMessages(raw, content);
}

/** The shared sampling fields, then `logit_bias`, which only chat has. */
function decodeChatSampling(body: JsonObject): SamplingParams {
  const s = decodeSampling(body);
  const logitBias = decodeLogitBias(body);
  if (logitBias !== undefined) s.logitBias = logitBias;
  return s;
}

/** Keys are token ids, which JSON can only spell as strings. */
function decodeLogitBias(body: JsonObject): Record<string, number> | undefined {
  const raw = readObject(body, 'logit_bias');
  if (raw === undefined) return undefined;
  for (const token in raw) {
    if (token.length === 0 || !Number.isInteger(Number(token))) {
      throw invalidValue('logit_bias', `keys must be token ids (integers), got ${JSON.stringify(token)}`);
    }
    readNumber(raw, token, ANY_NUMBER, 'logit_bias');
  }
  return raw as Record<string, number>;
}

function decodeExtra(body: JsonObject): Record<string, unknown> {
  const extra = pickFields(body, EXTRA_FIELDS);
  const search = extra.search_parameters;
  if (search !== undefined) {
    if (!isObject(search)) throw invalidType('search_parameters', 'an object', search);
    readNumber(search, 'max_search_results', MAX_SEARCH_RESULTS, 'search_parameters');
  }
  return extra;
}
