import { LRUCache } from 'lru-cache';

interface Held<V> {
  owner: string;
  value: V;
  size: number;
}

/**
 * An LRU cache bounded twice: all entries together by `maxTotal`, and each owner's (an
 * account's) entries by `maxPerOwner`, in the same unit (`size` of each value: its bytes,
 * or 1 to count entries). An owner's new entry past its own bound evicts that owner's least
 * recently used entries, never another owner's: one account filling the cache evicts only
 * its own older entries. Entries of other owners go only when the whole is full, which
 * takes at least maxTotal / maxPerOwner owners at their bound; then the least recently
 * used entry of any owner goes. Each entry expires after its TTL.
 */
export class OwnerBoundedLru<V> {
  private readonly maxTotal: number;
  private readonly maxPerOwner: number;
  private readonly all: LRUCache<string, Held<V>>;
  private readonly sizeOf: (value: V) => number;
  /** owner → its entries' ids (entryId), least recently used first → each one's size. */
  private readonly owners = new Map<string, Map<string, number>>();
  private readonly ownerTotals = new Map<string, number>();

  constructor(opts: { maxTotal: number; maxPerOwner: number; size?: (value: V) => number; now?: () => number }) {
    this.maxTotal = Math.max(1, opts.maxTotal);
    this.maxPerOwner = opts.maxPerOwner;
    this.sizeOf = opts.size ?? (() => 1);
    this.all = new LRUCache<string, Held<V>>({
      maxSize: this.maxTotal,
      maxEntrySize: this.maxTotal,
      sizeCalculation: (held) => held.size,
      dispose: (held, key) => this.untrack(held.owner, key),
      ttlAutopurge: false,
      ttlResolution: 0,
      ...(opts.now === undefined ? {} : { perf: { now: opts.now } }),
    });
  }

  /** The size of all entries together (expired ones dropped first). */
  get totalSize(): number {
    this.all.purgeStale();
    return this.all.calculatedSize;
  }

  /** The number of entries (expired ones dropped first). */
  get count(): number {
    this.all.purgeStale();
    return this.all.size;
  }

  /** The size of one owner's entries (expired ones dropped first). */
  ownerSize(owner: string): number {
    this.all.purgeStale();
    return this.ownerTotals.get(owner) ?? 0;
  }

  /** The value, when `owner` holds it and it has not expired; it becomes that owner's most recently used. */
  get(owner: string, key: string): V | undefined {
    const id = entryId(owner, key);
    const held = this.all.get(id);
    if (held === undefined || held.owner !== owner) return undefined;
    const keys = this.owners.get(owner)!;
    const size = keys.get(id)!;
    keys.delete(id);
    keys.set(id, size);
    return held.value;
  }

  /**
   * Keeps `value` for `ttlMs`; false when it is larger than an owner's whole share (then
   * nothing is kept under `key`). `maxPerOwner`, when given, is the bound in force (a
   * reloaded config's) instead of the constructor's.
   */
  set(owner: string, key: string, value: V, ttlMs: number, maxPerOwner = this.maxPerOwner): boolean {
    const bound = Math.max(1, Math.min(maxPerOwner, this.maxTotal));
    const size = Math.max(1, this.sizeOf(value));
    const id = entryId(owner, key);
    this.all.delete(id);
    if (size > bound) return false;
    const keys = this.owners.get(owner);
    if (keys !== undefined) {
      // This owner's own least recently used entries make room, and no one else's.
      while ((this.ownerTotals.get(owner) ?? 0) + size > bound) {
        const oldest = keys.keys().next().value;
        if (oldest === undefined) break;
        if (!this.all.delete(oldest)) this.untrack(owner, oldest);
      }
    }
    this.all.set(id, { owner, value, size }, { ttl: ttlMs });
    this.track(owner, id, size);
    return true;
  }

  private track(owner: string, key: string, size: number): void {
    let keys = this.owners.get(owner);
    if (keys === undefined) {
      keys = new Map();
      this.owners.set(owner, keys);
    }
    keys.set(key, size);
    this.ownerTotals.set(owner, (this.ownerTotals.get(owner) ?? 0) + size);
  }

  private untrack(owner: string, key: string): void {
    const keys = this.owners.get(owner);
    const size = keys?.get(key);
    if (keys === undefined || size === undefined) return;
    keys.delete(key);
    if (keys.size === 0) {
      this.owners.delete(owner);
      this.ownerTotals.delete(owner);
    } else {
      this.ownerTotals.set(owner, this.ownerTotals.get(owner)! - size);
    }
  }
}

/** An entry's id: its key within its owner's, so two owners' equal keys are two entries (as in the Redis stores). */
function entryId(owner: string, key: string): string {
  return `${owner}\u0000${key}`;
}
