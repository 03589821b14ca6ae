import { OwnerBoundedLru } from '../../shared/owner-bounded-lru.ts';

/**
 * Where a conversation's prompt cache lives: prompt-cache key (prompt-cache-keys.ts) →
 * the endpoint id that served it, under the account (`owner`) whose conversation it is.
 * An optimization only: an implementation that cannot answer rejects, and the caller
 * routes as if it knew nothing (sticky-routing.ts). Each account's entries are bounded by
 * its share of the whole: one account's conversations evict only its own.
 */
export interface StickyRoutes {
  /**
   * The endpoint remembered under the first of `keys` that has one, refreshing that entry's
   * TTL; null when none. `scope` (PromptCacheKeys.scope) is the same for every key of one
   * account and model: a shared store may group them under it (the keys are unique without it).
   */
  find(owner: string, scope: string, keys: readonly string[], ttlMs: number): Promise<string | null>;
  /** Remembers `endpointId` under `key` (of `scope`) for `ttlMs`; past `maxOwnerEntries`, the owner's least recently used go. */
  remember(owner: string, scope: string, key: string, endpointId: string, ttlMs: number, maxOwnerEntries: number): Promise<void>;
}

/**
 * In one process: an LRU bounded to `maxEntries` and each account to its share of them
 * (shared/owner-bounded-lru.ts: the least recently used go first, an account past its share
 * losing its own), each entry expiring after its TTL; a hit refreshes the entry with the
 * caller's TTL.
 */
export class InProcessStickyRoutes implements StickyRoutes {
  private readonly entries: OwnerBoundedLru<string>;

  constructor(opts: { maxEntries?: number; now?: () => number } = {}) {
    const maxEntries = opts.maxEntries ?? 100_000;
    this.entries = new OwnerBoundedLru<string>({
      maxTotal: maxEntries,
      maxPerOwner: maxEntries,
      ...(opts.now === undefined ? {} : { now: opts.now }),
    });
  }

  get size(): number {
    return this.entries.count;
  }

  /** The entries one account holds. */
  sizeOf(owner: string): number {
    return this.entries.ownerSize(owner);
  }

  async find(owner: string, _scope: string, keys: readonly string[], ttlMs: number): Promise<string | null> {
    for (const key of keys) {
      const endpointId = this.entries.get(owner, key);
      if (endpointId === undefined) continue;
      this.entries.set(owner, key, endpointId, ttlMs, Infinity);
      return endpointId;
    }
    return null;
  }

  async remember(owner: string, _scope: string, key: string, endpointId: string, ttlMs: number, maxOwnerEntries: number): Promise<void> {
    this.entries.set(owner, key, endpointId, ttlMs, maxOwnerEntries);
  }
}
