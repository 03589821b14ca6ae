import { ConfigError } from './config-error.ts';
import { at, checkKeys, optBoolean, optInt, optString, readEnum, readMapping, readString, readUsd } from './read-fields.ts';

/**
 * `search:` — the web search backend the gateway runs itself for models whose provider
 * cannot search (docs/tools.md, "Web search"): `plugins: [{id: "web"}]`, a `:online` model,
 * `web_search_options`, `search_parameters` and the responses `web_search` tool. Absent:
 * no backend, and those fields go to the providers that search natively, as before.
 */
export interface SearchConfig {
  kind: SearchKind;
  /** The backend's base URL (SearXNG: the instance; Brave, Tavily, Exa: their API, or a compatible one). */
  url: string;
  /** The API key (Brave, Tavily, Exa; optional for SearXNG): write it as a `${ENV}` reference. */
  key?: string;
  /** What one search costs the caller, USD decimal text (charged per search, held before it). */
  pricePerSearch: string;
  /** One search's bound (connect, answer and body). */
  timeoutMs: number;
  /** Results a request gets when it does not say (OpenRouter's default: 5). */
  defaultResults: number;
  /** Reach private, loopback and link-local addresses too (a SearXNG beside the gateway); off: SSRF protection. */
  allowPrivateAddresses: boolean;
}

export const SEARCH_KINDS = ['searxng', 'brave', 'tavily', 'exa'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const KEYS = ['kind', 'url', 'key', 'price_per_search', 'timeout_ms', 'default_results', 'allow_private_addresses'] as const;
/** The kinds whose API refuses a call without a key. */
const NEEDS_KEY: ReadonlySet<SearchKind> = new Set(['brave', 'tavily', 'exa']);

export function parseSearch(value: unknown, path: string): SearchConfig | null {
  if (value === undefined || value === null) return null;
  const fields = readMapping(value, path);
  checkKeys(fields, KEYS, path);
  if (fields.kind === undefined || fields.kind === null)
    throw new ConfigError(at(path, 'kind'), `required: one of ${SEARCH_KINDS.join(', ')}`);
  const kind = readEnum(fields.kind, SEARCH_KINDS, at(path, 'kind'));
  if (fields.url === undefined || fields.url === null) throw new ConfigError(at(path, 'url'), "required: the backend's base URL");
  const url = readUrl(readString(fields.url, at(path, 'url')), at(path, 'url'));
  const key = optString(fields, 'key', path);
  if (key === undefined && NEEDS_KEY.has(kind))
    throw new ConfigError(at(path, 'key'), `required for kind ${kind} (write it as a \${ENV} reference)`);
  if (fields.price_per_search === undefined || fields.price_per_search === null) {
    throw new ConfigError(at(path, 'price_per_search'), 'required: what one search costs the caller, in USD (e.g. "0.005"; "0" for free)');
  }
  const config: SearchConfig = {
    kind,
    url,
    pricePerSearch: readUsd(fields.price_per_search, at(path, 'price_per_search')),
    timeoutMs: optInt(fields, 'timeout_ms', path, 100, 120_000) ?? 10_000,
    defaultResults: optInt(fields, 'default_results', path, 1, 30) ?? 5,
    allowPrivateAddresses: optBoolean(fields, 'allow_private_addresses', path) ?? false,
  };
  if (key !== undefined) config.key = key;
  return config;
}

function readUrl(text: string, path: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(path, `expected an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(path, `expected an http(s) URL, got "${text}"`);
  if (url.username !== '' || url.password !== '') throw new ConfigError(path, 'must not hold credentials: use `key`');
  return text.replace(/\/+$/, '');
}
