/**
 * Where a conversation's prompt cache lives: prompt-cache key (prompt-cache-keys.ts) →
 * the endpoint id that served it. An optimization only: an implementation that cannot
 * answer rejects, and the caller routes as if it knew nothing (sticky-routing.ts).
 */
export interface StickyRoutes {
  /** The endpoint remembered under the first of `keys` that has one, refreshing that entry's TTL; null when none. */
  find(keys: readonly string[], ttlMs: number): Promise<string | null>;
  /** Remembers `endpointId` under `key` for `ttlMs`. */
  remember(key: string, endpointId: string, ttlMs: number): Promise<void>;
}

interface Entry {
  endpointId: string;
  expiresAt: number;
}

/**
 * In one process: a Map kept in least-recently-used order (a hit moves its entry to the
 * end), bounded to `maxEntries` (the oldest goes first), entries expiring after their TTL.
 */
export class InProcessStickyRoutes implements StickyRoutes {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: { maxEntries?: number; now?: () => number } = {}) {
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  async find(keys: readonly string[], ttlMs: number): Promise<string | null> {
    const now = this.now();
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry === undefined) continue;
      this.entries.delete(key);
      if (entry.expiresAt <= now) continue;
      entry.expiresAt = now + ttlMs;
      this.entries.set(key, entry);
      return entry.endpointId;
    }
    return null;
  }

  async remember(key: string, endpointId: string, ttlMs: number): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, { endpointId, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }
}
