import type { CanonicalRequest } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// What a request asks of web search, in any of the forms clients send (docs/tools.md):
// OpenRouter's `plugins: [{id: "web", max_results, search_prompt, engine}]` and its
// `:online` model suffix, OpenAI's `web_search_options`, the spec's `search_parameters`
// (`mode` off/auto/on, `max_search_results` 1–30, dates, `return_citations`, `sources`)
// and the responses dialect's `web_search` tool. Each may add `on_error: "continue"`: a
// failing backend then gives an answer without search (said so in the answer) instead of 502.

/** The request field a provider that searches natively would take it in. */
export type NativeSearchField = 'plugins' | 'web_search_options' | 'search_parameters';

export interface WebSearchAsk {
  /** Where it came from: `native` passes the field through to the provider, as before the gateway searched. */
  engine: 'native' | 'auto' | 'gateway';
  field: NativeSearchField | null;
  maxResults?: number;
  /** OpenRouter's `search_prompt`: the text put before the results, instead of the default. */
  searchPrompt?: string;
  fromDate?: string;
  toDate?: string;
  includeDomains?: string[];
  excludeDomains?: string[];
  /** False: no `annotations` nor `citations` in the answer (`search_parameters.return_citations: false`). */
  returnCitations: boolean;
  /** The request allows an answer without search when the backend fails. */
  continueOnError: boolean;
}

const ONLINE = ':online';
const MAX_RESULTS = 30;
const CONTEXT_SIZE_RESULTS: Record<string, number> = { low: 3, medium: 5, high: 10 };

/** Cheap: whether the request may ask for web search at all (no allocation for a request that does not). */
export function mayAskWebSearch(req: CanonicalRequest): boolean {
  const extra = req.extra;
  if (
    extra.plugins !== undefined ||
    extra.web_search_options !== undefined ||
    extra.search_parameters !== undefined ||
    req.webSearchTool === true
  )
    return true;
  for (const choice of req.models) if (choice.model.endsWith(ONLINE)) return true;
  return false;
}

/** The request's web search, or null when it asks for none. Throws 400 for a malformed one. */
export function readWebSearchAsk(req: CanonicalRequest): WebSearchAsk | null {
  const extra = req.extra;
  const plugin = webPlugin(extra.plugins);
  if (plugin !== null) return plugin;
  if (extra.search_parameters !== undefined) {
    const ask = fromSearchParameters(extra.search_parameters);
    if (ask !== undefined) return ask;
  }
  if (extra.web_search_options !== undefined && extra.web_search_options !== null) return fromWebSearchOptions(extra.web_search_options);
  if (req.models.some((c) => c.model.endsWith(ONLINE)))
    return { engine: 'auto', field: 'plugins', returnCitations: true, continueOnError: false };
  if (req.webSearchTool === true) return { engine: 'gateway', field: null, returnCitations: true, continueOnError: false };
  return null;
}

/** Removes the search fields the gateway runs itself, so that no provider is sent (or refuses) them. */
export function stripWebSearchFields(req: CanonicalRequest): void {
  const extra = req.extra;
  delete extra.web_search_options;
  delete extra.search_parameters;
  if (Array.isArray(extra.plugins)) {
    const others = extra.plugins.filter((p) => (p as { id?: unknown } | null)?.id !== 'web');
    if (others.length === 0) delete extra.plugins;
    else extra.plugins = others;
  }
}

/** A native search asked by the `:online` suffix alone goes to the provider as its `web` plugin. */
export function passNative(req: CanonicalRequest, ask: WebSearchAsk): void {
  if (ask.field === 'plugins' && webPlugin(req.extra.plugins) === null) {
    req.extra.plugins = [...(Array.isArray(req.extra.plugins) ? (req.extra.plugins as unknown[]) : []), { id: 'web' }];
  }
}

function webPlugin(plugins: unknown): WebSearchAsk | null {
  if (!Array.isArray(plugins)) return null;
  for (let i = 0; i < plugins.length; i++) {
    const p = plugins[i] as Record<string, unknown> | null;
    if (p === null || typeof p !== 'object' || p.id !== 'web') continue;
    const path = `plugins[${i}]`;
    const ask: WebSearchAsk = { engine: 'auto', field: 'plugins', returnCitations: true, continueOnError: readOnError(p, path) };
    const max = readInt(p, 'max_results', path);
    if (max !== undefined) ask.maxResults = max;
    const prompt = p.search_prompt;
    if (prompt !== undefined && prompt !== null) {
      if (typeof prompt !== 'string') throw invalid(`${path}.search_prompt`, 'must be a string');
      if (prompt.length > 10_000) throw invalid(`${path}.search_prompt`, 'must be at most 10000 characters');
      ask.searchPrompt = prompt;
    }
    const engine = p.engine;
    if (engine !== undefined && engine !== null) {
      if (typeof engine !== 'string') throw invalid(`${path}.engine`, 'must be a string');
      // Any engine but "native" is the operator's backend (exa, brave, ...: whichever it configured).
      ask.engine = engine === 'native' ? 'native' : 'gateway';
    }
    return ask;
  }
  return null;
}

function fromSearchParameters(raw: unknown): WebSearchAsk | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const s = raw as Record<string, unknown>;
  const path = 'search_parameters';
  const mode = s.mode;
  if (mode !== undefined && mode !== null && mode !== 'off' && mode !== 'auto' && mode !== 'on') {
    throw invalid(`${path}.mode`, `must be 'off', 'auto' or 'on', got ${JSON.stringify(mode)}`);
  }
  if (mode === 'off') return undefined;
  const ask: WebSearchAsk = {
    engine: 'auto',
    field: 'search_parameters',
    returnCitations: s.return_citations !== false,
    continueOnError: readOnError(s, path),
  };
  const max = readInt(s, 'max_search_results', path);
  if (max !== undefined) ask.maxResults = max;
  const from = readDate(s, 'from_date', path);
  if (from !== undefined) ask.fromDate = from;
  const to = readDate(s, 'to_date', path);
  if (to !== undefined) ask.toDate = to;
  if (Array.isArray(s.sources)) {
    for (const source of s.sources as Array<Record<string, unknown> | null>) {
      if (source === null || typeof source !== 'object') continue;
      addDomains(ask, 'includeDomains', source.allowed_websites);
      addDomains(ask, 'excludeDomains', source.excluded_websites);
    }
  }
  return ask;
}

function fromWebSearchOptions(raw: unknown): WebSearchAsk {
  const path = 'web_search_options';
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(path, 'must be an object');
  const o = raw as Record<string, unknown>;
  const ask: WebSearchAsk = { engine: 'auto', field: 'web_search_options', returnCitations: true, continueOnError: readOnError(o, path) };
  const size = o.search_context_size;
  if (size !== undefined && size !== null) {
    const n = typeof size === 'string' ? CONTEXT_SIZE_RESULTS[size] : undefined;
    if (n === undefined) throw invalid(`${path}.search_context_size`, `must be 'low', 'medium' or 'high', got ${JSON.stringify(size)}`);
    ask.maxResults = n;
  }
  return ask;
}

function addDomains(ask: WebSearchAsk, key: 'includeDomains' | 'excludeDomains', value: unknown): void {
  if (!Array.isArray(value)) return;
  for (const d of value) if (typeof d === 'string' && d.length > 0 && d.length <= 253) (ask[key] ??= []).push(d);
}

function readOnError(o: Record<string, unknown>, path: string): boolean {
  const v = o.on_error;
  if (v === undefined || v === null || v === 'fail') return false;
  if (v === 'continue') return true;
  throw invalid(`${path}.on_error`, `must be 'fail' or 'continue', got ${JSON.stringify(v)}`);
}

function readInt(o: Record<string, unknown>, key: string, path: string): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_RESULTS)
    throw invalid(`${path}.${key}`, `must be an integer from 1 to ${MAX_RESULTS}`);
  return v;
}

function readDate(o: Record<string, unknown>, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(Date.parse(v)))
    throw invalid(`${path}.${key}`, 'must be an ISO 8601 date (YYYY-MM-DD)');
  return v.slice(0, 10);
}

function invalid(param: string, rule: string): GatewayError {
  return new GatewayError('invalid_parameter', `Invalid value for '${param}': ${rule}.`, { param });
}
