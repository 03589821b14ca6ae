import { isCapability, CAPABILITIES, type Capability } from '../canonical/capabilities.ts';
import type { PricingSpec } from '../money/pricing.ts';
import { IMAGE_PRICE_KEY } from '../money/image-prices.ts';
import { MODEL_KINDS } from '../canonical/task.ts';
import { REQUEST_PARAMETERS } from '../canonical/request.ts';
import { ConfigError } from './config-error.ts';
import {
  at,
  checkKeys,
  optBoolean,
  optEnum,
  optEnumList,
  optInt,
  optString,
  optStringList,
  readList,
  readMapping,
  readPrice,
  readString,
  type Fields,
} from './read-fields.ts';
import type { EndpointInput, ModelInput } from './types.ts';

const MODEL_KEYS = [
  'id',
  'kind',
  'name',
  'description',
  'context_length',
  'capabilities',
  'aliases',
  'created',
  'endpoints',
  'enabled',
] as const;
const ENDPOINT_KEYS = [
  'provider',
  'model',
  'pricing',
  'context_length',
  'max_output_tokens',
  'quantization',
  'data_collection',
  'zdr',
  'supported_parameters',
  'moderated',
] as const;
const PRICING_KEYS = [
  'prompt',
  'completion',
  'request',
  'image',
  'cache_read',
  'cache_write',
  'image_output',
  'image_output_by',
  'image_prompt',
  'character',
  'audio_second',
] as const;

/** `<author>/<name>`: one slash; the name may hold ':' (`ollama/llama3:8b`). */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export function parseModels(value: unknown, path: string): ModelInput[] {
  if (value === undefined || value === null) return [];
  const seen = new Set<string>();
  return readList(value, path).map((item, i) => {
    const model = parseModel(item, at(path, i));
    if (seen.has(model.id)) throw new ConfigError(at(at(path, i), 'id'), `duplicate model id "${model.id}"`);
    seen.add(model.id);
    return model;
  });
}

function parseModel(value: unknown, path: string): ModelInput {
  const fields = readMapping(value, path);
  checkKeys(fields, MODEL_KEYS, path);
  const id = readString(fields.id, at(path, 'id'));
  if (!MODEL_ID.test(id)) throw new ConfigError(at(path, 'id'), `"${id}" is not a model id of the form <author>/<name>`);
  const out: ModelInput = { id };
  const kind = optEnum(fields, 'kind', MODEL_KINDS, path);
  if (kind !== undefined) out.kind = kind;
  const name = optString(fields, 'name', path);
  if (name !== undefined) out.name = name;
  const description = optString(fields, 'description', path);
  if (description !== undefined) out.description = description;
  const contextLength = optInt(fields, 'context_length', path, 1);
  if (contextLength !== undefined) out.contextLength = contextLength;
  const capabilities = optStringList(fields, 'capabilities', path);
  if (capabilities !== undefined) out.capabilities = capabilities.map((c, i) => toCapability(c, at(at(path, 'capabilities'), i)));
  const aliases = optStringList(fields, 'aliases', path);
  if (aliases !== undefined) out.aliases = aliases;
  const created = readCreated(fields, path);
  if (created !== undefined) out.created = created;
  if (fields.endpoints !== undefined && fields.endpoints !== null) {
    const p = at(path, 'endpoints');
    out.endpoints = readList(fields.endpoints, p).map((item, i) => parseEndpoint(item, at(p, i)));
  }
  const enabled = optBoolean(fields, 'enabled', path);
  if (enabled !== undefined) out.enabled = enabled;
  return out;
}

function toCapability(value: string, path: string): Capability {
  if (!isCapability(value)) throw new ConfigError(path, `expected one of ${CAPABILITIES.join(', ')}, got "${value}"`);
  return value;
}

/** Unix seconds, or a date (`2025-04-14`) for readability. */
function readCreated(fields: Fields, path: string): number | undefined {
  const value = fields.created;
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new ConfigError(at(path, 'created'), `"${value}" is not a valid date`);
    return Math.floor(ms / 1000);
  }
  return optInt(fields, 'created', path, 0);
}

function parseEndpoint(value: unknown, path: string): EndpointInput {
  const fields = readMapping(value, path);
  checkKeys(fields, ENDPOINT_KEYS, path);
  const out: EndpointInput = {
    provider: readString(fields.provider, at(path, 'provider')),
    pricing: parsePricing(fields.pricing, at(path, 'pricing')),
  };
  const model = optString(fields, 'model', path);
  if (model !== undefined) out.model = model;
  const contextLength = optInt(fields, 'context_length', path, 1);
  if (contextLength !== undefined) out.contextLength = contextLength;
  const maxOutputTokens = optInt(fields, 'max_output_tokens', path, 1);
  if (maxOutputTokens !== undefined) out.maxOutputTokens = maxOutputTokens;
  const quantization = optString(fields, 'quantization', path);
  if (quantization !== undefined) out.quantization = quantization;
  const dataCollection = optEnum(fields, 'data_collection', ['allow', 'deny'] as const, path);
  if (dataCollection !== undefined) out.dataCollection = dataCollection;
  const zdr = optBoolean(fields, 'zdr', path);
  if (zdr !== undefined) out.zdr = zdr;
  const supported = optEnumList(fields, 'supported_parameters', REQUEST_PARAMETERS, path);
  if (supported !== undefined) out.supportedParameters = supported;
  const moderated = optBoolean(fields, 'moderated', path);
  if (moderated !== undefined) out.moderated = moderated;
  return out;
}

function parsePricing(value: unknown, path: string): PricingSpec {
  if (value === undefined || value === null) {
    throw new ConfigError(path, 'required: USD per token as strings, e.g. { prompt: "0.000001", completion: "0.000002" }');
  }
  const fields = readMapping(value, path);
  checkKeys(fields, PRICING_KEYS, path);
  for (const required of ['prompt', 'completion'] as const) {
    if (fields[required] === undefined || fields[required] === null) throw new ConfigError(at(path, required), 'required');
  }
  const out: PricingSpec = {
    prompt: readPrice(fields.prompt, at(path, 'prompt')),
    completion: readPrice(fields.completion, at(path, 'completion')),
  };
  for (const key of [
    'request',
    'image',
    'cache_read',
    'cache_write',
    'image_output',
    'image_prompt',
    'character',
    'audio_second',
  ] as const) {
    if (fields[key] !== undefined && fields[key] !== null) out[key] = readPrice(fields[key], at(path, key));
  }
  if (fields.image_output_by !== undefined && fields.image_output_by !== null)
    out.image_output_by = parseImagePrices(fields.image_output_by, at(path, 'image_output_by'));
  return out;
}

/** `image_output_by`: `<size>/<quality>` (either side `*`) → USD per image (money/image-prices.ts). */
function parseImagePrices(value: unknown, path: string): Record<string, string> {
  const fields = readMapping(value, path);
  const out: Record<string, string> = {};
  for (const [key, price] of Object.entries(fields)) {
    if (!IMAGE_PRICE_KEY.test(key)) {
      throw new ConfigError(
        at(path, key),
        `"${key}" is not <size>/<quality>: a size such as 1024x1024 or *, a slash, a quality such as high or * (e.g. "1024x1536/high")`,
      );
    }
    out[key] = readPrice(price, at(path, key));
  }
  return out;
}
