import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Usage } from '../../canonical/usage.ts';
import { promptCacheKeys, type PromptCacheKeys } from './prompt-cache-keys.ts';
import type { StickyRoutes } from './sticky-routes.ts';

/** What admission found for a request: its prompt-cache keys and the endpoint remembered for them (or null). */
export interface StickyLookup {
  /** The account whose conversation it is. */
  owner: string;
  keys: PromptCacheKeys;
  endpointId: string | null;
}

/**
 * Sticky routing for prompt caches (docs/routing.md, "Sticky routing"): before planning,
 * the endpoint remembered for the request's cacheable prefix; after a successful answer,
 * the endpoint that served it, when the request asked for caching or the answer read or
 * wrote cache tokens. The store failing never fails a request: the lookup finds nothing,
 * the write is dropped, and the operator log says so once per outage.
 */
export class StickyRouting {
  private readonly routes: StickyRoutes;
  private readonly log: (message: string) => void;
  /** The most entries one account may hold (`sticky.account_share` of `sticky.max_entries`). */
  private readonly maxPerAccount: number;
  private failing = false;

  constructor(routes: StickyRoutes, log: (message: string) => void, maxPerAccount = Infinity) {
    this.routes = routes;
    this.log = log;
    this.maxPerAccount = maxPerAccount;
  }

  /** `find: false`: the keys only (to remember this turn), no lookup (it could not change the plan). */
  async lookup(accountId: string, modelId: string, req: CanonicalRequest, find = true): Promise<StickyLookup> {
    const keys = promptCacheKeys(accountId, modelId, req);
    if (!find) return { owner: accountId, keys, endpointId: null };
    try {
      const endpointId = await this.routes.find(accountId, keys.scope, keys.lookup, keys.ttlMs);
      this.recovered();
      return { owner: accountId, keys, endpointId };
    } catch (err) {
      this.failed(err);
      return { owner: accountId, keys, endpointId: null };
    }
  }

  /** Not awaited by the caller: the write is sent before the answer ends, so the next turn's lookup (on the same connection) sees it. */
  remember(found: StickyLookup, servedEndpointId: string, usage: Usage | null): void {
    const usedCache = usage !== null && ((usage.cacheRead ?? 0) > 0 || (usage.cacheWrite ?? 0) > 0);
    if (!found.keys.cacheable && !usedCache) return;
    this.routes.remember(found.owner, found.keys.scope, found.keys.store, servedEndpointId, found.keys.ttlMs, this.maxPerAccount).then(
      () => this.recovered(),
      (err: unknown) => this.failed(err),
    );
  }

  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.log(
      `sticky routing unavailable (${err instanceof Error ? err.message : String(err)}): routing by the normal draw until it answers again`,
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.log('sticky routing answers again');
  }
}
