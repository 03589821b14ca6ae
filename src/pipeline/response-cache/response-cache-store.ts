/** Where cached answers are kept: key (a digest, response-cache-key.ts) → the answer's JSON. */
export interface ResponseCacheStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

interface Entry {
  value: string;
  bytes: number;
  expiresAt: number;
}

/**
 * In one process: a Map kept in least-recently-used order, bounded by the bytes of all its
 * values together (the oldest go first), each entry expiring after its TTL.
 */
export class InProcessResponseCacheStore implements ResponseCacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxTotalBytes: number;
  private readonly now: () => number;
  private bytes = 0;

  constructor(opts: { maxTotalBytes: number; now?: () => number }) {
    this.maxTotalBytes = opts.maxTotalBytes;
    this.now = opts.now ?? Date.now;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  async get(key: string): Promise<string | null> {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    this.drop(key, entry);
    if (entry.expiresAt <= this.now()) return null;
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    const bytes = Buffer.byteLength(value);
    if (bytes > this.maxTotalBytes) return;
    this.entries.set(key, { value, bytes, expiresAt: this.now() + ttlMs });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxTotalBytes) break;
      this.drop(k, e);
    }
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
