import { LRUCache } from 'lru-cache';

/**
 * Where a conversation's prompt cache lives: prompt-cache key (prompt-cache-keys.ts) →
 * the endpoint id that served it. An optimization only: an implementation that cannot
 * answer rejects, and the caller routes as if it knew nothing (sticky-routing.ts).
 */
export interface StickyRoutes {
  /**
   * The endpoint remembered under the first of `keys` that has one, refreshing that entry's
   * TTL; null when none. `scope` (PromptCacheKeys.scope) is the same for every key of one
   * account and model: a shared store may group them under it (the keys are unique without it).
   */
  find(scope: string, keys: readonly string[], ttlMs: number): Promise<string | null>;
  /** Remembers `endpointId` under `key` (of `scope`) for `ttlMs`. */
  remember(scope: string, key: string, endpointId: string, ttlMs: number): Promise<void>;
}

/**
 * In one process: lru-cache, bounded to `maxEntries` (the least recently used go first),
 * each entry expiring after its TTL; a hit refreshes the entry with the caller's TTL.
 */
export class InProcessStickyRoutes implements StickyRoutes {
  private readonly entries: LRUCache<string, string>;

  constructor(opts: { maxEntries?: number; now?: () => number } = {}) {
    this.entries = new LRUCache<string, string>({
      max: opts.maxEntries ?? 100_000,
      ttlAutopurge: false,
      ttlResolution: 0,
      ...(opts.now === undefined ? {} : { perf: { now: opts.now } }),
    });
  }

  get size(): number {
    this.entries.purgeStale();
    return this.entries.size;
  }

  async find(_scope: string, keys: readonly string[], ttlMs: number): Promise<string | null> {
    for (const key of keys) {
      const endpointId = this.entries.get(key);
      if (endpointId === undefined) continue;
      this.entries.set(key, endpointId, { ttl: ttlMs });
      return endpointId;
    }
    return null;
  }

  async remember(_scope: string, key: string, endpointId: string, ttlMs: number): Promise<void> {
    this.entries.set(key, endpointId, { ttl: ttlMs });
  }
}
