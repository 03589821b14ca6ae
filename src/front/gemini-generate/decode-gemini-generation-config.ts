import type { CanonicalRequest, ReasoningConfig, ReasoningEffort, ResponseFormat } from '../../canonical/request.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  readBoolean,
  readEnum,
  readNumber,
  readObject,
  readStringArray,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';
import { decodeGeminiSchema } from './decode-gemini-schema.ts';

// `generationConfig` of a GenerateContentRequest → the canonical request's sampling,
// limits, response format and reasoning:
// - temperature, topP, topK, presencePenalty, frequencyPenalty, seed, maxOutputTokens,
//   stopSequences map one to one;
// - candidateCount: one answer per request is what the gateway serves (and bills); more
//   is a clear 400;
// - responseMimeType `application/json` → JSON output, with `responseJsonSchema` (JSON
//   Schema) or `responseSchema` (Gemini's subset, converted) → structured output;
//   `text/plain` → text; `text/x.enum` has no canonical twin (a 400);
// - thinkingConfig: `thinkingBudget` 0 → reasoning off, -1 → on at the model's own budget,
//   n → on with n tokens; `thinkingLevel` → effort; `includeThoughts` false or absent →
//   the reasoning is not returned (`exclude`), Gemini's default;
// - responseModalities → modalities (lower-cased);
// - every other field (responseLogprobs, mediaResolution, speechConfig, ...) is ignored.

const TEMPERATURE: NumberRange = { min: 0, max: 2 };
const UNIT_INTERVAL: NumberRange = { min: 0, max: 1 };
const PENALTY: NumberRange = { min: -2, max: 2, minExclusive: false };
const TOP_K: NumberRange = { min: 0, integer: true };
const SEED: NumberRange = { integer: true };
const MAX_TOKENS: NumberRange = { min: 1, integer: true };
const CANDIDATES: NumberRange = { min: 1, integer: true };
const BUDGET: NumberRange = { min: -1, integer: true };
const PREFIX = 'generationConfig';

const MIME_TYPES: ReadonlySet<string> = new Set(['text/plain', 'application/json', 'text/x.enum']);
const LEVELS: Readonly<Record<string, ReasoningEffort>> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };
const LEVEL_NAMES: ReadonlySet<string> = new Set(['THINKING_LEVEL_UNSPECIFIED', ...Object.keys(LEVELS)]);
const MODALITIES: ReadonlySet<string> = new Set(['TEXT', 'IMAGE', 'AUDIO', 'MODALITY_UNSPECIFIED']);

export function decodeGenerationConfig(body: JsonObject, req: CanonicalRequest): void {
  const config = readObject(body, PREFIX);
  if (config === undefined) return;
  const s = req.sampling;
  const temperature = readNumber(config, 'temperature', TEMPERATURE, PREFIX);
  if (temperature !== undefined) s.temperature = temperature;
  const topP = readNumber(config, 'topP', UNIT_INTERVAL, PREFIX);
  if (topP !== undefined) s.topP = topP;
  const topK = readNumber(config, 'topK', TOP_K, PREFIX);
  if (topK !== undefined) s.topK = topK;
  const presence = readNumber(config, 'presencePenalty', PENALTY, PREFIX);
  if (presence !== undefined) s.presencePenalty = presence;
  const frequency = readNumber(config, 'frequencyPenalty', PENALTY, PREFIX);
  if (frequency !== undefined) s.frequencyPenalty = frequency;
  const seed = readNumber(config, 'seed', SEED, PREFIX);
  if (seed !== undefined) s.seed = seed;

  const candidates = readNumber(config, 'candidateCount', CANDIDATES, PREFIX);
  if (candidates !== undefined && candidates !== 1) {
    throw invalidValue(
      `${PREFIX}.candidateCount`,
      `the gateway answers with one candidate per request; send 1 (or leave it out), got ${candidates}`,
    );
  }
  const maxTokens = readNumber(config, 'maxOutputTokens', MAX_TOKENS, PREFIX);
  if (maxTokens !== undefined) req.maxOutputTokens = maxTokens;
  const stop = readStringArray(config, 'stopSequences', PREFIX);
  if (stop !== undefined && stop.length > 0) req.stop = stop;

  const format = decodeResponseFormat(config);
  if (format !== undefined) req.responseFormat = format;
  const reasoning = decodeThinking(config);
  if (reasoning !== undefined) req.reasoning = reasoning;

  const modalities = readEnumList(config, 'responseModalities');
  if (modalities !== undefined && modalities.length > 0) req.modalities = modalities.map((m) => m.toLowerCase());
}

function readEnumList(config: JsonObject, key: string): string[] | undefined {
  const list = readStringArray(config, key, PREFIX);
  if (list === undefined) return undefined;
  const out: string[] = [];
  for (const [i, item] of list.entries()) {
    const value = item.toUpperCase();
    if (!MODALITIES.has(value))
      throw invalidValue(`${PREFIX}.${key}[${i}]`, `must be one of 'TEXT', 'IMAGE', 'AUDIO', got ${JSON.stringify(item)}`);
    if (value !== 'MODALITY_UNSPECIFIED') out.push(value);
  }
  return out;
}

function decodeResponseFormat(config: JsonObject): ResponseFormat | undefined {
  const mime = readEnum(config, 'responseMimeType', MIME_TYPES, PREFIX);
  if (mime === 'text/x.enum') {
    throw invalidValue(
      `${PREFIX}.responseMimeType`,
      "'text/x.enum' is not carried to every provider; use 'application/json' with a schema whose type is an enum",
    );
  }
  const jsonSchema = config.responseJsonSchema ?? config._responseJsonSchema;
  const schema = config.responseSchema;
  let converted: Record<string, unknown> | undefined;
  if (jsonSchema !== undefined && jsonSchema !== null) {
    if (!isObject(jsonSchema)) throw invalidType(`${PREFIX}.responseJsonSchema`, 'a JSON Schema object', jsonSchema);
    converted = jsonSchema;
  } else if (schema !== undefined && schema !== null) {
    if (!isObject(schema)) throw invalidType(`${PREFIX}.responseSchema`, 'a Schema object', schema);
    converted = decodeGeminiSchema(schema);
  }
  if (converted !== undefined) {
    if (mime === 'text/plain') throw invalidValue(`${PREFIX}.responseMimeType`, "a response schema needs 'application/json'");
    return { type: 'json_schema', name: 'response', schema: converted };
  }
  if (mime === 'application/json') return { type: 'json_object' };
  return undefined;
}

function decodeThinking(config: JsonObject): ReasoningConfig | undefined {
  const prefix = `${PREFIX}.thinkingConfig`;
  const thinking = readObject(config, 'thinkingConfig', PREFIX);
  if (thinking === undefined) return undefined;
  const budget = readNumber(thinking, 'thinkingBudget', BUDGET, prefix);
  const level = readEnum(thinking, 'thinkingLevel', LEVEL_NAMES, prefix);
  const include = readBoolean(thinking, 'includeThoughts', prefix) === true;
  if (budget === 0) return { enabled: false };
  const reasoning: ReasoningConfig = {};
  if (budget !== undefined || level !== undefined || include) reasoning.enabled = true;
  else return undefined;
  if (budget !== undefined && budget > 0) reasoning.maxTokens = budget;
  const effort = level === undefined ? undefined : LEVELS[level];
  if (effort !== undefined) reasoning.effort = effort;
  if (!include) reasoning.exclude = true;
  return reasoning;
}
