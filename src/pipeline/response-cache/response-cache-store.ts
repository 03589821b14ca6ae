import { LRUCache } from 'lru-cache';

/** Where cached answers are kept: key (a digest, response-cache-key.ts) → the answer's JSON. */
export interface ResponseCacheStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

/**
 * In one process: lru-cache bounded by the bytes of all its values together (the least
 * recently used go first; a value over the whole bound is not kept), each entry expiring
 * after its TTL.
 */
export class InProcessResponseCacheStore implements ResponseCacheStore {
  private readonly entries: LRUCache<string, string>;

  constructor(opts: { maxTotalBytes: number; now?: () => number }) {
    this.entries = new LRUCache<string, string>({
      maxSize: opts.maxTotalBytes,
      maxEntrySize: opts.maxTotalBytes,
      sizeCalculation: (value) => Math.max(1, Buffer.byteLength(value)),
      ttlAutopurge: false,
      ttlResolution: 0,
      ...(opts.now === undefined ? {} : { perf: { now: opts.now } }),
    });
  }

  get totalBytes(): number {
    this.entries.purgeStale();
    return this.entries.calculatedSize;
  }

  async get(key: string): Promise<string | null> {
    return this.entries.get(key) ?? null;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, value, { ttl: ttlMs });
  }
}
