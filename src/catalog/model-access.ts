import { globMatch } from '../config/tier-limits.ts';
import { priceToAttos } from '../money/money.ts';
import type { Endpoint, ModelInfo } from './types.ts';

// What a key may reach: allowlists set on an account, (later) on a member, and on a key.
// The effective allowlist is the intersection of every list present: a model must match
// every model list, an endpoint's provider every provider list, and its prices stay under
// the lowest maximum of each kind. A model is reachable when its id passes and at least one
// of its endpoints does. Outside it, a model is exactly an unknown one (the planner's
// `model_not_found`, the lists leave it out): a key learns nothing of what it may not use.

/** One level's allowlist, as stored (JSON) and as the APIs take it; an absent field restricts nothing. */
export interface Allowlist {
  /** Model ids and globs (`anthropic/*`: `*` matches any run of characters). */
  models?: string[];
  /** Provider ids (case-insensitive). */
  providers?: string[];
  /** USD per million tokens, decimal text (OpenRouter's `provider.max_price` convention). */
  maxPrice?: { prompt?: string; completion?: string };
  /** MCP servers the gateway may run tools of (`server`, or `server/tool` for one tool); not a model list (src/mcp/mcp-scope.ts). */
  mcpServers?: string[];
}

const PER_MILLION = 1_000_000n;

/**
 * An effective allowlist, compiled once (globs split, prices in atto-USD) and kept with the
 * key's auth context; per model and per endpoint list, its answers are memoized, so the
 * request path pays a WeakMap lookup.
 */
export class ModelAccess {
  /** Each model list's patterns split at `*`; a model must match one pattern of every list. */
  private readonly modelLists: ReadonlyArray<ReadonlyArray<readonly string[]>>;
  private readonly providerLists: ReadonlyArray<ReadonlySet<string>>;
  /** Atto-USD per million tokens; -1n: no maximum. */
  private readonly maxPrompt: bigint;
  private readonly maxCompletion: bigint;
  private readonly models = new WeakMap<ModelInfo, boolean>();
  private readonly lists = new WeakMap<readonly object[], readonly object[]>();

  private constructor(lists: readonly Allowlist[]) {
    this.modelLists = lists.filter((l) => l.models !== undefined).map((l) => l.models!.map((p) => p.split('*')));
    this.providerLists = lists.filter((l) => l.providers !== undefined).map((l) => new Set(l.providers!.map((p) => p.toLowerCase())));
    this.maxPrompt = lowest(lists.map((l) => l.maxPrice?.prompt));
    this.maxCompletion = lowest(lists.map((l) => l.maxPrice?.completion));
  }

  /**
   * The intersection of the lists given (null or undefined: that level sets none; the order
   * does not matter), or null when none restricts anything: the caller's fast path.
   */
  static compile(lists: ReadonlyArray<Allowlist | null | undefined>): ModelAccess | null {
    const present = lists.filter(
      (l): l is Allowlist => l != null && (l.models !== undefined || l.providers !== undefined || l.maxPrice !== undefined),
    );
    return present.length === 0 ? null : new ModelAccess(present);
  }

  /** The model's id passes every model list and one of its endpoints passes the rest. */
  allowsModel(model: ModelInfo): boolean {
    let allowed = this.models.get(model);
    if (allowed === undefined) {
      allowed = this.allowsId(model.id) && model.endpoints.some((ep) => this.allowsEndpoint(ep));
      this.models.set(model, allowed);
    }
    return allowed;
  }

  allowsId(modelId: string): boolean {
    for (const list of this.modelLists) {
      if (!list.some((parts) => globMatch(parts, modelId))) return false;
    }
    return true;
  }

  allowsEndpoint(ep: Endpoint): boolean {
    if (this.providerLists.length > 0) {
      const provider = ep.provider.id.toLowerCase();
      for (const list of this.providerLists) if (!list.has(provider)) return false;
    }
    const p = ep.compiledPricing;
    if (this.maxPrompt >= 0n && p.prompt * PER_MILLION > this.maxPrompt) return false;
    if (this.maxCompletion >= 0n && p.completion * PER_MILLION > this.maxCompletion) return false;
    return true;
  }

  /** The items whose endpoint is allowed, memoized per list (a list the catalog or the planner built once). */
  endpointsOf<T extends { readonly endpoint: Endpoint }>(items: readonly T[]): readonly T[] {
    let kept = this.lists.get(items) as readonly T[] | undefined;
    if (kept === undefined) {
      kept = items.filter((item) => this.allowsEndpoint(item.endpoint));
      this.lists.set(items, kept);
    }
    return kept;
  }
}

/** The lowest of the prices given, in atto-USD; -1n when none is. */
function lowest(prices: ReadonlyArray<string | undefined>): bigint {
  let out = -1n;
  for (const p of prices) {
    if (p === undefined) continue;
    const attos = priceToAttos(p);
    if (out < 0n || attos < out) out = attos;
  }
  return out;
}
