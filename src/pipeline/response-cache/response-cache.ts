import { createHash } from 'node:crypto';
import type { Cost } from '../../billing/compute-cost.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { PlannedAttempt } from '../../catalog/types.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { ResponseCacheConfig } from '../../config/parse-response-cache.ts';
import { formatNanos } from '../../money/money.ts';
import type { ExecutionSink } from '../../routing/execute-attempts.ts';
import type { ResponseCacheStore } from './response-cache-store.ts';

/** The client's say, from its headers: `X-Switchyard-Cache: on|off` and `X-Switchyard-Cache-TTL: <seconds>`. */
export interface CacheDirective {
  mode: 'on' | 'off' | null;
  ttlSeconds: number | null;
}

/** What is kept of an answer: who served it and its parts, replayed as a stream or folded alike. */
interface CachedAnswer {
  model: string;
  endpoint: string;
  parts: StreamPart[];
}

/** An eligible request's cache key and, on a hit, the answer and the attempt it names. */
export interface CacheProbe {
  /** The account whose answer it is: each account's entries are bounded by its share of the cache. */
  owner: string;
  key: string;
  ttlMs: number;
  hit: { attempt: PlannedAttempt; parts: StreamPart[] } | null;
}

/**
 * Exact-match response caching, opt-in (docs/configuration.md#response-cache): when the
 * operator enabled it, a request is eligible with `temperature: 0` or `X-Switchyard-Cache:
 * on` (and never with `off`); its key is a digest of the account and the whole canonical
 * request except `stream` (a streamed hit replays the parts a plain request stored, and the
 * other way round), so nothing is shared across accounts. The store failing is a miss.
 */
export class ResponseCache {
  private readonly config: ResponseCacheConfig;
  private readonly store: ResponseCacheStore;
  private readonly catalog: Catalog;
  private readonly log: (message: string) => void;
  private failing = false;

  constructor(config: ResponseCacheConfig, store: ResponseCacheStore, catalog: Catalog, log: (message: string) => void) {
    this.config = config;
    this.store = store;
    this.catalog = catalog;
    this.log = log;
  }

  /**
   * Null when the request is not eligible, at once (no promise: most requests, issue 29);
   * else its key, and the answer when there is one.
   */
  probe(accountId: string, req: CanonicalRequest, directive: CacheDirective | undefined): Promise<CacheProbe> | null {
    // Task answers (embeddings, images, audio) are not cached: the key covers conversations only.
    if (!this.config.enabled || directive?.mode === 'off' || req.task !== undefined) return null;
    if (directive?.mode !== 'on' && req.sampling.temperature !== 0) return null;
    return this.lookup(accountId, req, directive);
  }

  private async lookup(accountId: string, req: CanonicalRequest, directive: CacheDirective | undefined): Promise<CacheProbe> {
    const ttlSeconds = Math.min(this.config.ttlSeconds, directive?.ttlSeconds ?? Infinity);
    const key = requestKey(accountId, req);
    let text: string | null = null;
    try {
      text = await this.store.get(accountId, key);
      this.recovered();
    } catch (err) {
      this.failed(err);
    }
    return { owner: accountId, key, ttlMs: ttlSeconds * 1000, hit: text === null ? null : this.resolve(text) };
  }

  /** Keeps a successful answer (when not larger than `max_entry_bytes`); not awaited: a failure is logged. */
  save(probe: CacheProbe, served: PlannedAttempt, parts: readonly StreamPart[]): void {
    const entry: CachedAnswer = { model: served.model.id, endpoint: served.endpoint.id, parts: [...parts] };
    const text = JSON.stringify(entry);
    if (Buffer.byteLength(text) > this.config.maxEntryBytes) return;
    const maxOwnerBytes = Math.floor(this.config.maxTotalBytes * this.config.accountShare);
    this.store.set(probe.owner, probe.key, text, probe.ttlMs, maxOwnerBytes).then(
      () => this.recovered(),
      (err: unknown) => this.failed(err),
    );
  }

  /** A hit's charge: the answer's cost times `cache.hit_price`, rounded half up; `cache_hit_discount` says what was not charged. */
  priceHit(cost: Cost): Cost {
    const { numerator, denominator } = this.config.hitPrice;
    const total = (cost.totalNanos * numerator * 2n + denominator) / (2n * denominator);
    if (total === cost.totalNanos) return cost;
    return { totalNanos: total, breakdown: { ...cost.breakdown, cache_hit_discount: formatNanos(cost.totalNanos - total) } };
  }

  /** The attempt a cached answer names, while the catalog still has it (a reload may have removed it: then a miss). */
  private resolve(text: string): CacheProbe['hit'] {
    let entry: CachedAnswer;
    try {
      entry = JSON.parse(text) as CachedAnswer;
    } catch {
      return null; // not ours, or cut: a miss, overwritten by this request's answer
    }
    const model = this.catalog.resolve(entry.model)?.model;
    const endpoint = model?.endpoints.find((e) => e.id === entry.endpoint);
    if (model === undefined || endpoint === undefined) return null;
    return { attempt: { model, endpoint }, parts: entry.parts };
  }

  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.log(
      `response cache unavailable (${err instanceof Error ? err.message : String(err)}): requests go upstream until it answers again`,
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.log('response cache answers again');
  }
}

function requestKey(accountId: string, req: CanonicalRequest): string {
  const { stream: _stream, ...rest } = req;
  return createHash('sha256').update(`${accountId}\n`).update(JSON.stringify(rest)).digest('hex');
}

/** Passes parts through and keeps those of the attempt in progress (a failed attempt's are forgotten). */
export class RecordingSink implements ExecutionSink {
  readonly inner: ExecutionSink;
  readonly parts: StreamPart[] = [];

  constructor(inner: ExecutionSink) {
    this.inner = inner;
  }

  get committed(): boolean {
    return this.inner.committed;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.parts.length = 0;
    this.inner.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    this.parts.push(part);
    this.inner.part(part);
  }

  waitForDrain(): Promise<void> | null {
    return this.inner.waitForDrain();
  }
}
