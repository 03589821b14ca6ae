import type { CanonicalRequest, Message, SamplingParams } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { isReasoningEnabled } from '../shared/decode-reasoning.ts';
import {
  invalidType, invalidValue, isObject, missingParameter, readBoolean, readNumber, readObject,
  readString, readStringArray, readStringMap, type JsonObject, type NumberRange,
} from '../shared/read-fields.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import { decodeChatReasoning } from './decode-chat-reasoning.ts';
import { decodeChatResponseFormat, decodeChatToolChoice, decodeChatTools } from './decode-chat-tools.ts';

// The body of POST /v1/chat/completions → CanonicalRequest, validated per the spec's chat
// request table. Fields the client did not set stay absent; unknown fields are ignored.

const TEMPERATURE: NumberRange = { min: 0, max: 2 };
const UNIT_INTERVAL: NumberRange = { min: 0, max: 1 };
const PENALTY: NumberRange = { min: -2, max: 2 };
const REPETITION_PENALTY: NumberRange = { min: 0, max: 2, minExclusive: true };
const TOP_K: NumberRange = { min: 0, integer: true };
const SEED: NumberRange = { integer: true };
const MAX_TOKENS: NumberRange = { min: 1, integer: true };
const MAX_SEARCH_RESULTS: NumberRange = { min: 1, max: 30, integer: true };
const ANY_NUMBER: NumberRange = {};
const MODALITIES: ReadonlySet<string> = new Set(['text', 'audio', 'image']);

/** Provider-specific fields, passed through untouched to providers that accept them. */
const EXTRA_FIELDS = [
  'search_parameters', 'safe_prompt', 'raw_mode', 'deferred', 'plugins', 'mcp', 'verbosity',
  'service_tier', 'prediction', 'web_search_options', 'transforms',
] as const;

export function decodeChatRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');

  const messages = decodeMessagesOrPrompt(body);
  const sampling = decodeSampling(body);
  const req: CanonicalRequest = {
    models: decodeModelList(body),
    messages,
    sampling,
    stream: readBoolean(body, 'stream') ?? false,
    extra: decodeExtra(body),
  };

  const maxTokens = readNumber(body, 'max_tokens', MAX_TOKENS);
  const maxCompletionTokens = readNumber(body, 'max_completion_tokens', MAX_TOKENS);
  const maxOutputTokens = maxCompletionTokens ?? maxTokens;
  if (maxOutputTokens !== undefined) req.maxOutputTokens = maxOutputTokens;

  const stop = decodeStop(body.stop);
  if (stop !== undefined) req.stop = stop;

  const tools = decodeChatTools(body.tools);
  if (tools !== undefined) req.tools = tools;
  const toolChoice = decodeChatToolChoice(body.tool_choice);
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

  const modalities = readStringArray(body, 'modalities');
  if (modalities !== undefined) {
    for (let i = 0; i < modalities.length; i++) {
      if (!MODALITIES.has(modalities[i]!)) {
        throw invalidValue(`modalities[${i}]`, `must be one of 'text', 'audio', 'image', got ${JSON.stringify(modalities[i])}`);
      }
    }
    req.modalities = modalities;
  }
  const audio = readObject(body, 'audio');
  if (audio !== undefined) req.audio = audio;

  const promptCacheKey = readString(body, 'prompt_cache_key');
  if (promptCacheKey !== undefined) req.promptCacheKey = promptCacheKey;
  const user = readString(body, 'user');
  if (user !== undefined) req.user = user;
  const metadata = readStringMap(body, 'metadata');
  if (metadata !== undefined) req.metadata = metadata;
  return req;
}

function decodeMessagesOrPrompt(body: JsonObject): Message[] {
  const raw = body.messages;
  if (raw === undefined || raw === null) {
    const prompt = body.prompt;
    if (typeof prompt === 'string') return [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
    if (prompt !== undefined && prompt !== null) throw invalidType('prompt', 'a string', prompt);
    throw missingParameter('messages', 'must be an array of at least 1 message');
  }
  if (!Array.isArray(raw)) throw invalidType('messages', 'an array of messages', raw);
  if (raw.length === 0) throw invalidValue('messages', 'must contain at least 1 message');
  return decodeChatMessages(raw);
}

function decodeSampling(body: JsonObject): SamplingParams {
  const s: SamplingParams = {};
  const temperature = readNumber(body, 'temperature', TEMPERATURE);
  if (temperature !== undefined) s.temperature = temperature;
  const topP = readNumber(body, 'top_p', UNIT_INTERVAL);
  if (topP !== undefined) s.topP = topP;
  const topK = readNumber(body, 'top_k', TOP_K);
  if (topK !== undefined) s.topK = topK;
  const minP = readNumber(body, 'min_p', UNIT_INTERVAL);
  if (minP !== undefined) s.minP = minP;
  const topA = readNumber(body, 'top_a', UNIT_INTERVAL);
  if (topA !== undefined) s.topA = topA;
  const frequencyPenalty = readNumber(body, 'frequency_penalty', PENALTY);
  if (frequencyPenalty !== undefined) s.frequencyPenalty = frequencyPenalty;
  const presencePenalty = readNumber(body, 'presence_penalty', PENALTY);
  if (presencePenalty !== undefined) s.presencePenalty = presencePenalty;
  const repetitionPenalty = readNumber(body, 'repetition_penalty', REPETITION_PENALTY);
  if (repetitionPenalty !== undefined) s.repetitionPenalty = repetitionPenalty;
  const seed = readNumber(body, 'seed', SEED);
  if (seed !== undefined) s.seed = seed;
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

function decodeStop(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return [raw];
  if (!Array.isArray(raw)) throw invalidType('stop', 'a string or an array of strings', raw);
  for (let i = 0; i < raw.length; i++) {
    if (typeof raw[i] !== 'string') throw invalidType(`stop[${i}]`, 'a string', raw[i]);
  }
  // An empty list sets nothing; some providers reject `stop: []`.
  return raw.length === 0 ? undefined : (raw as string[]);
}

function checkReasoningConflicts(req: CanonicalRequest): void {
  if (req.sampling.topK !== undefined) {
    throw new GatewayError('reasoning_conflict', "'top_k' is not allowed while reasoning is enabled; remove it or disable reasoning.", { param: 'top_k' });
  }
  const choice = req.toolChoice;
  if (choice !== undefined && choice.type !== 'auto' && choice.type !== 'none') {
    throw new GatewayError(
      'reasoning_conflict',
      "'tool_choice' must be 'auto' or 'none' while reasoning is enabled; a forced tool choice needs reasoning disabled.",
      { param: 'tool_choice' },
    );
  }
}

function decodeExtra(body: JsonObject): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (let i = 0; i < EXTRA_FIELDS.length; i++) {
    const key = EXTRA_FIELDS[i]!;
    const value = body[key];
    if (value !== undefined && value !== null) extra[key] = value;
  }
  const search = extra.search_parameters;
  if (search !== undefined) {
    if (!isObject(search)) throw invalidType('search_parameters', 'an object', search);
    readNumber(search, 'max_search_results', MAX_SEARCH_RESULTS, 'search_parameters');
  }
  return extra;
}
