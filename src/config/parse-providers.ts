import type { CacheFamily } from '../money/pricing.ts';
import { ConfigError } from './config-error.ts';
import { CLOUD_PROVIDER_KEYS, parseCloudFields } from './parse-cloud-fields.ts';
import { PROVIDER_KINDS } from './provider-kinds.ts';
import {
  at,
  checkKeys,
  optBoolean,
  optEnum,
  optInt,
  optString,
  optStringList,
  optStringMap,
  readList,
  readMapping,
  readString,
} from './read-fields.ts';
import { UNPRICED_OPTIONS } from './unpriced-options.ts';
import type { CredentialInput, ProviderInput } from './types.ts';

const PROVIDER_KEYS = [
  'id',
  'kind',
  'name',
  'base_url',
  'api_key',
  'api_keys',
  'headers',
  'timeout_ms',
  'cache_family',
  'profile',
  'options',
  'enabled',
  'moderated',
  'unpriced_options',
  ...CLOUD_PROVIDER_KEYS,
] as const;

const CACHE_FAMILIES: readonly CacheFamily[] = ['prompt_cache_key', 'cache_control', 'none'];

// No slash: an endpoint id is `<provider id>/<upstream model>`.
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function parseProviders(value: unknown, path: string): ProviderInput[] {
  if (value === undefined || value === null) return [];
  const seen = new Set<string>();
  return readList(value, path).map((item, i) => {
    const provider = parseProvider(item, at(path, i));
    if (seen.has(provider.id)) throw new ConfigError(at(at(path, i), 'id'), `duplicate provider id "${provider.id}"`);
    seen.add(provider.id);
    return provider;
  });
}

function parseProvider(value: unknown, path: string): ProviderInput {
  const fields = readMapping(value, path);
  checkKeys(fields, PROVIDER_KEYS, path);
  const id = readString(fields.id, at(path, 'id'));
  if (!PROVIDER_ID.test(id)) {
    throw new ConfigError(at(path, 'id'), `"${id}" is not a provider slug (letters, digits, '.', '_' and '-'; no '/')`);
  }
  const out: ProviderInput = { id };
  const kind = optEnum(fields, 'kind', PROVIDER_KINDS, path);
  if (kind !== undefined) out.kind = kind;
  const name = optString(fields, 'name', path);
  if (name !== undefined) out.name = name;
  const baseUrl = optString(fields, 'base_url', path);
  if (baseUrl !== undefined) {
    if (!URL.canParse(baseUrl)) throw new ConfigError(at(path, 'base_url'), 'expected an absolute URL such as http://127.0.0.1:9100/v1');
    out.baseUrl = baseUrl.replace(/\/+$/, '');
  }
  const apiKey = optString(fields, 'api_key', path);
  if (apiKey !== undefined) out.apiKey = apiKey;
  const apiKeys = parseCredentials(fields.api_keys, at(path, 'api_keys'));
  if (apiKeys !== undefined) out.apiKeys = apiKeys;
  const headers = optStringMap(fields, 'headers', path);
  if (headers !== undefined) out.headers = headers;
  const timeoutMs = optInt(fields, 'timeout_ms', path, 1);
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  const cacheFamily = optEnum(fields, 'cache_family', CACHE_FAMILIES, path);
  if (cacheFamily !== undefined) out.cacheFamily = cacheFamily;
  const profile = optString(fields, 'profile', path);
  if (profile !== undefined) out.profile = profile;
  if (fields.options !== undefined && fields.options !== null) {
    out.options = { ...readMapping(fields.options, at(path, 'options')) };
    const batch = out.options.max_embedding_inputs;
    if (batch !== undefined && !(typeof batch === 'number' && Number.isInteger(batch) && batch >= 1)) {
      throw new ConfigError(
        `${path}.options.max_embedding_inputs`,
        'expected a whole number of at least 1 (inputs per upstream embeddings call)',
      );
    }
  }
  const enabled = optBoolean(fields, 'enabled', path);
  if (enabled !== undefined) out.enabled = enabled;
  const moderated = optBoolean(fields, 'moderated', path);
  if (moderated !== undefined) out.moderated = moderated;
  const unpriced = optStringList(fields, 'unpriced_options', path);
  if (unpriced !== undefined) {
    for (const o of unpriced) {
      if (!(UNPRICED_OPTIONS as readonly string[]).includes(o))
        throw new ConfigError(`${path}.unpriced_options`, `unknown option "${o}" (known: ${UNPRICED_OPTIONS.join(', ')})`);
    }
    out.unpricedOptions = unpriced;
  }
  parseCloudFields(fields, out, path);
  return out;
}

const CREDENTIAL_KEYS = ['key', 'label', 'weight', 'rpm', 'tpm', 'models'] as const;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `api_keys:` — the provider's credential pool; labels unique, keys non-empty, weights positive. */
function parseCredentials(value: unknown, path: string): CredentialInput[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = readList(value, path);
  if (list.length === 0)
    throw new ConfigError(path, 'expected at least one credential ({key, label}); remove api_keys to use api_key alone');
  const labels = new Set<string>();
  return list.map((item, i) => {
    const p = at(path, i);
    const fields = readMapping(item, p);
    checkKeys(fields, CREDENTIAL_KEYS, p);
    const label = readString(fields.label, at(p, 'label'));
    if (!LABEL.test(label))
      throw new ConfigError(at(p, 'label'), `"${label}" is not a label (letters, digits, '.', '_' and '-'; at most 64)`);
    if (labels.has(label)) throw new ConfigError(at(p, 'label'), `duplicate credential label "${label}"`);
    labels.add(label);
    // The value is never quoted back: it is a secret.
    if (typeof fields.key !== 'string')
      throw new ConfigError(at(p, 'key'), 'required: the credential (a string, or an environment reference such as ${OPENAI_KEY_2})');
    if (fields.key.trim() === '') throw new ConfigError(at(p, 'key'), 'is empty (an unset environment variable?)');
    const out: CredentialInput = { key: fields.key, label, weight: 1 };
    if (fields.weight !== undefined && fields.weight !== null) {
      const w = fields.weight;
      if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0)
        throw new ConfigError(at(p, 'weight'), 'expected a number greater than 0');
      out.weight = w;
    }
    const rpm = optInt(fields, 'rpm', p, 1);
    if (rpm !== undefined) out.rpm = rpm;
    const tpm = optInt(fields, 'tpm', p, 1);
    if (tpm !== undefined) out.tpm = tpm;
    const models = optStringList(fields, 'models', p);
    if (models !== undefined) {
      if (models.length === 0) throw new ConfigError(at(p, 'models'), 'expected at least one model glob (remove models to allow all)');
      out.models = models;
    }
    return out;
  });
}
