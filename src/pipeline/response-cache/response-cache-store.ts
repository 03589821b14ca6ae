import { OwnerBoundedLru } from '../../shared/owner-bounded-lru.ts';

/**
 * Where cached answers are kept: key (a digest, response-cache.ts's requestKey) → the
 * answer's JSON, under the account (`owner`) whose answer it is. Each account's entries
 * are bounded by its share of the whole: one account's answers evict only its own.
 */
export interface ResponseCacheStore {
  get(owner: string, key: string): Promise<string | null>;
  /** Keeps `value`; past `maxOwnerBytes` (the account's share in force), the owner's least recently used entries go. */
  set(owner: string, key: string, value: string, ttlMs: number, maxOwnerBytes: number): Promise<void>;
}

/**
 * In one process: an LRU bounded by the bytes of all its values together and by each
 * account's share of them (shared/owner-bounded-lru.ts: an account past its share evicts
 * its own least recently used entries; a value over the share is not kept), each entry
 * expiring after its TTL.
 */
export class InProcessResponseCacheStore implements ResponseCacheStore {
  private readonly entries: OwnerBoundedLru<string>;

  constructor(opts: { maxTotalBytes: number; now?: () => number }) {
    this.entries = new OwnerBoundedLru<string>({
      maxTotal: opts.maxTotalBytes,
      maxPerOwner: opts.maxTotalBytes,
      size: (value) => Buffer.byteLength(value),
      ...(opts.now === undefined ? {} : { now: opts.now }),
    });
  }

  get totalBytes(): number {
    return this.entries.totalSize;
  }

  /** The bytes of one account's entries. */
  accountBytes(owner: string): number {
    return this.entries.ownerSize(owner);
  }

  async get(owner: string, key: string): Promise<string | null> {
    return this.entries.get(owner, key) ?? null;
  }

  async set(owner: string, key: string, value: string, ttlMs: number, maxOwnerBytes: number): Promise<void> {
    this.entries.set(owner, key, value, ttlMs, maxOwnerBytes);
  }
}
