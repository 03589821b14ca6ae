import { GatewayError } from '../errors/gateway-error.ts';
import type { Allowlist } from '../catalog/model-access.ts';
import { priceToAttos } from '../money/money.ts';

// The allowlist fields of the keys and accounts APIs and the CLI, read and bounded alike
// (a refusal is a 400 `invalid_parameter` naming the field):
//   allowed_models     model ids and globs (`anthropic/*`), or null (no list)
//   allowed_providers  provider ids, or null
//   max_price          {prompt?, completion?}: USD per million tokens (decimal text or a JSON
//                      number), as OpenRouter's `provider.max_price`; or null
//   max_in_flight      (keys only) requests in flight at once, 1..MAX_IN_FLIGHT, or null

export const MAX_ALLOWLIST_ENTRIES = 256;
export const MAX_PATTERN_CHARS = 256;
export const MAX_IN_FLIGHT = 100_000;
/** USD per million tokens: far above any real price. */
export const MAX_PRICE_PER_MILLION = 1_000_000;
export const MODEL_PATTERN = '^[A-Za-z0-9._:@/+*-]+$';
export const PROVIDER_PATTERN = '^[A-Za-z0-9._-]+$';
/** An MCP server's name, or `server/tool` for one of its tools. */
export const MCP_SERVER_PATTERN = '^[A-Za-z0-9_-]+(/[A-Za-z0-9._-]+)?$';
const MODEL_RE = new RegExp(MODEL_PATTERN);
const PROVIDER_RE = new RegExp(PROVIDER_PATTERN);
const MCP_SERVER_RE = new RegExp(MCP_SERVER_PATTERN);

/** What a body asks to change (undefined: unchanged; null: that list removed). */
export interface AllowlistChange {
  models?: string[] | null;
  providers?: string[] | null;
  maxPrice?: { prompt?: string; completion?: string } | null;
  mcpServers?: string[] | null;
}

/** The allowlist fields of a body (`allowed_models`, `allowed_providers`, `max_price`), or null when it has none. */
export function readAllowlistChange(body: Record<string, unknown>): AllowlistChange | null {
  const out: AllowlistChange = {};
  if ('allowed_models' in body)
    out.models = readList(body.allowed_models, 'allowed_models', MODEL_RE, 'model ids or globs such as "anthropic/*"');
  if ('allowed_providers' in body) out.providers = readList(body.allowed_providers, 'allowed_providers', PROVIDER_RE, 'provider ids');
  if ('max_price' in body) out.maxPrice = readMaxPrice(body.max_price);
  if ('allowed_mcp_servers' in body)
    out.mcpServers = readList(body.allowed_mcp_servers, 'allowed_mcp_servers', MCP_SERVER_RE, 'MCP server names, or server/tool');
  return Object.keys(out).length === 0 ? null : out;
}

/** `current` with `change` applied; null when no list is left. */
export function applyAllowlist(current: Allowlist | null, change: AllowlistChange | null): Allowlist | null {
  if (change === null) return current;
  const next: Allowlist = { ...(current ?? {}) };
  if (change.models !== undefined) set(next, 'models', change.models);
  if (change.providers !== undefined) set(next, 'providers', change.providers);
  if (change.maxPrice !== undefined) set(next, 'maxPrice', change.maxPrice);
  if (change.mcpServers !== undefined) set(next, 'mcpServers', change.mcpServers);
  return next.models === undefined && next.providers === undefined && next.maxPrice === undefined && next.mcpServers === undefined
    ? null
    : next;
}

function set<K extends keyof Allowlist>(list: Allowlist, field: K, value: Allowlist[K] | null): void {
  if (value === null) delete list[field];
  else list[field] = value;
}

/** `max_in_flight`: an integer 1..MAX_IN_FLIGHT, or null (no cap). */
export function readMaxInFlight(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_IN_FLIGHT) return value;
  throw new GatewayError('invalid_parameter', `"max_in_flight" must be an integer from 1 to ${MAX_IN_FLIGHT}, or null (no cap).`, {
    param: 'max_in_flight',
  });
}

/** The API's view of an allowlist (the fields a body takes). */
export function allowlistView(list: Allowlist | null): {
  allowed_models: string[] | null;
  allowed_providers: string[] | null;
  max_price: { prompt?: string; completion?: string } | null;
  allowed_mcp_servers: string[] | null;
} {
  return {
    allowed_models: list?.models ?? null,
    allowed_providers: list?.providers ?? null,
    max_price: list?.maxPrice ?? null,
    allowed_mcp_servers: list?.mcpServers ?? null,
  };
}

function readList(value: unknown, field: string, re: RegExp, what: string): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > MAX_ALLOWLIST_ENTRIES) {
    throw new GatewayError(
      'invalid_parameter',
      `"${field}" must be an array of at most ${MAX_ALLOWLIST_ENTRIES} ${what}, or null (no list).`,
      { param: field },
    );
  }
  const out: string[] = [];
  for (const [i, entry] of value.entries()) {
    if (typeof entry !== 'string' || entry.length === 0 || entry.length > MAX_PATTERN_CHARS || !re.test(entry)) {
      throw new GatewayError(
        'invalid_parameter',
        `"${field}[${i}]" must be one of ${what}: letters, digits and . _ - ${field === 'allowed_models' ? ': @ / + * ' : ''}only, 1 to ${MAX_PATTERN_CHARS} characters.`,
        { param: field },
      );
    }
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

function readMaxPrice(value: unknown): { prompt?: string; completion?: string } | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_parameter', '"max_price" must be an object {prompt, completion} of USD per million tokens, or null.', {
      param: 'max_price',
    });
  }
  const out: { prompt?: string; completion?: string } = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k !== 'prompt' && k !== 'completion') {
      throw new GatewayError('invalid_parameter', `"max_price.${k}" is not a price of the allowlist (known: prompt, completion).`, {
        param: `max_price.${k}`,
      });
    }
    const text = typeof v === 'number' ? String(v) : v;
    if (typeof text !== 'string' || text.length > 40 || !/^\d+(\.\d{1,18})?$/.test(text) || Number(text) > MAX_PRICE_PER_MILLION) {
      throw new GatewayError(
        'invalid_parameter',
        `"max_price.${k}" must be USD per million tokens, from 0 to ${MAX_PRICE_PER_MILLION} (decimal text such as "3.5", at most 18 decimals).`,
        { param: `max_price.${k}` },
      );
    }
    priceToAttos(text);
    out[k] = text;
  }
  if (out.prompt === undefined && out.completion === undefined) {
    throw new GatewayError('invalid_parameter', '"max_price" must set "prompt", "completion" or both (null removes it).', {
      param: 'max_price',
    });
  }
  return out;
}
