import { priceToAttos } from '../money/money.ts';
import type { ProviderPreferences } from '../canonical/request.ts';

export type RoutingSort = 'price' | 'throughput' | 'latency';

/** A model's provider preferences, ready for the filters: slugs lower-cased, prices in atto-USD. */
export interface CompiledPreferences {
  order: string[] | null;
  allowFallbacks: boolean;
  requireParameters: boolean;
  denyDataCollection: boolean;
  zdr: boolean;
  only: string[] | null;
  ignore: string[] | null;
  quantizations: string[] | null;
  sort: RoutingSort | null;
  /** Atto-USD per million tokens for prompt and completion, per unit for request and image; -1n: no limit. */
  maxPrompt: bigint;
  maxCompletion: bigint;
  maxRequest: bigint;
  maxImage: bigint;
}

/**
 * The preferences that apply to one model of the request: a fallback's own `provider`
 * object overrides the request's field by field (a fallback that only sets `order` keeps
 * the request's `data_collection: deny`). The `:nitro` and `:floor` variants sort by
 * throughput and by price unless `sort` is given.
 */
export function compilePreferences(
  request: ProviderPreferences | undefined,
  own: ProviderPreferences | undefined,
  variant: string | undefined,
): CompiledPreferences {
  const p = own === undefined ? (request ?? NO_PREFERENCES) : request === undefined ? own : { ...request, ...own };
  let sort: RoutingSort | null = p.sort ?? null;
  if (sort === null && variant === 'nitro') sort = 'throughput';
  if (sort === null && variant === 'floor') sort = 'price';
  const mp = p.maxPrice;
  return {
    order: lower(p.order),
    allowFallbacks: p.allowFallbacks !== false,
    requireParameters: p.requireParameters === true,
    denyDataCollection: p.dataCollection === 'deny',
    zdr: p.zdr === true,
    only: lower(p.only),
    ignore: lower(p.ignore),
    quantizations: lower(p.quantizations),
    sort,
    maxPrompt: mp?.prompt === undefined ? -1n : usdToAttos(mp.prompt),
    maxCompletion: mp?.completion === undefined ? -1n : usdToAttos(mp.completion),
    maxRequest: mp?.request === undefined ? -1n : usdToAttos(mp.request),
    maxImage: mp?.image === undefined ? -1n : usdToAttos(mp.image),
  };
}

const NO_PREFERENCES: ProviderPreferences = {};

function lower(list: string[] | undefined): string[] | null {
  if (list === undefined || list.length === 0) return null;
  return list.map((s) => s.toLowerCase());
}

/** A limit from the request (a JSON number, validated ≥ 0) in atto-USD, exactly when it has ≤ 18 decimals. */
function usdToAttos(usd: number): bigint {
  try {
    return priceToAttos(usd);
  } catch {
    // Finer than an atto-dollar: no catalog price lies strictly between, so rounding down is exact enough.
    return BigInt(Math.floor(usd * 1e18));
  }
}
