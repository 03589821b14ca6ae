import type { ProviderPreferences } from '../../canonical/request.ts';
import {
  fieldPath,
  invalidType,
  readBoolean,
  readEnum,
  readNumber,
  readObject,
  readStringArray,
  type JsonObject,
  type NumberRange,
} from './read-fields.ts';

// The `provider` routing preferences object, the same in every dialect. Unknown keys are
// ignored (the spec: unsupported parameters are silently ignored).

const DATA_COLLECTION = new Set(['allow', 'deny'] as const);
const SORT = new Set(['price', 'throughput', 'latency'] as const);
const PRICE: NumberRange = { min: 0 };

/** Reads `obj[key]` as provider preferences; `prefix` is the path of `obj`, if nested. */
export function decodeProviderPreferences(obj: JsonObject, key: string, prefix?: string): ProviderPreferences | undefined {
  const raw = obj[key];
  if (raw === undefined || raw === null) return undefined;
  const path = fieldPath(prefix, key);
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidType(path, 'an object', raw);
  const p = raw as JsonObject;
  const out: ProviderPreferences = {};

  const order = readStringArray(p, 'order', path);
  if (order !== undefined) out.order = order;
  const only = readStringArray(p, 'only', path);
  if (only !== undefined) out.only = only;
  const ignore = readStringArray(p, 'ignore', path);
  if (ignore !== undefined) out.ignore = ignore;
  const quantizations = readStringArray(p, 'quantizations', path);
  if (quantizations !== undefined) out.quantizations = quantizations;

  const allowFallbacks = readBoolean(p, 'allow_fallbacks', path);
  if (allowFallbacks !== undefined) out.allowFallbacks = allowFallbacks;
  const requireParameters = readBoolean(p, 'require_parameters', path);
  if (requireParameters !== undefined) out.requireParameters = requireParameters;
  const zdr = readBoolean(p, 'zdr', path);
  if (zdr !== undefined) out.zdr = zdr;

  const dataCollection = readEnum(p, 'data_collection', DATA_COLLECTION, path);
  if (dataCollection !== undefined) out.dataCollection = dataCollection;
  const sort = readEnum(p, 'sort', SORT, path);
  if (sort !== undefined) out.sort = sort;

  const maxPrice = readObject(p, 'max_price', path);
  if (maxPrice !== undefined) {
    const pricePath = `${path}.max_price`;
    const mp: NonNullable<ProviderPreferences['maxPrice']> = {};
    const prompt = readNumber(maxPrice, 'prompt', PRICE, pricePath);
    if (prompt !== undefined) mp.prompt = prompt;
    const completion = readNumber(maxPrice, 'completion', PRICE, pricePath);
    if (completion !== undefined) mp.completion = completion;
    const request = readNumber(maxPrice, 'request', PRICE, pricePath);
    if (request !== undefined) mp.request = request;
    const image = readNumber(maxPrice, 'image', PRICE, pricePath);
    if (image !== undefined) mp.image = image;
    out.maxPrice = mp;
  }
  return out;
}
