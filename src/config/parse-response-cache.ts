import { ConfigError } from './config-error.ts';
import { at, checkKeys, optBoolean, optInt, readMapping } from './read-fields.ts';

/** `cache:` — exact-match response caching (docs/configuration.md#response-cache). Off unless `enabled: true`. */
export interface ResponseCacheConfig {
  enabled: boolean;
  /** How long an answer is kept (a request's `X-Switchyard-Cache-TTL` may ask for less). */
  ttlSeconds: number;
  /** An answer larger than this (its stored JSON) is not kept. */
  maxEntryBytes: number;
  /** The in-process cache's bound on all entries together (a fleet's Redis is bounded by its own maxmemory). */
  maxTotalBytes: number;
  /**
   * The most of `maxTotalBytes` one account's entries may take (0 < share <= 1): past it an
   * account's new answers evict its own older ones, never another account's. In a fleet, the
   * same bound per account in Redis.
   */
  accountShare: number;
  /** What a hit costs, as a fraction of the answer's price: free 0/1, full 1/1, `0.25` 25/100. Exact, never a float. */
  hitPrice: { numerator: bigint; denominator: bigint };
}

export const RESPONSE_CACHE_DEFAULTS: ResponseCacheConfig = {
  enabled: false,
  ttlSeconds: 300,
  maxEntryBytes: 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  accountShare: 0.25,
  hitPrice: { numerator: 0n, denominator: 1n },
};

const KEYS = ['enabled', 'ttl_seconds', 'max_entry_bytes', 'max_total_bytes', 'account_share', 'hit_price'] as const;

export function parseResponseCache(value: unknown, path: string): ResponseCacheConfig {
  if (value === undefined || value === null) return RESPONSE_CACHE_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, KEYS, path);
  const d = RESPONSE_CACHE_DEFAULTS;
  return {
    enabled: optBoolean(fields, 'enabled', path) ?? d.enabled,
    ttlSeconds: optInt(fields, 'ttl_seconds', path, 1) ?? d.ttlSeconds,
    maxEntryBytes: optInt(fields, 'max_entry_bytes', path, 1) ?? d.maxEntryBytes,
    maxTotalBytes: optInt(fields, 'max_total_bytes', path, 1) ?? d.maxTotalBytes,
    accountShare:
      fields.account_share === undefined || fields.account_share === null
        ? d.accountShare
        : readShare(fields.account_share, at(path, 'account_share')),
    hitPrice:
      fields.hit_price === undefined || fields.hit_price === null ? d.hitPrice : readHitPrice(fields.hit_price, at(path, 'hit_price')),
  };
}

/** `free`, `full`, or a decimal fraction from 0 to 1 with up to 6 decimals (`0.25`), read as an exact ratio. */
function readHitPrice(value: unknown, path: string): ResponseCacheConfig['hitPrice'] {
  if (value === 'free') return { numerator: 0n, denominator: 1n };
  if (value === 'full') return { numerator: 1n, denominator: 1n };
  const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  const m = /^(0|1)(?:\.(\d{1,6}))?$/.exec(text);
  if (m === null) throw new ConfigError(path, 'expected free, full or a fraction from 0 to 1 such as 0.25');
  const decimals = m[2] ?? '';
  const denominator = 10n ** BigInt(decimals.length);
  const numerator = BigInt(m[1]!) * denominator + (decimals === '' ? 0n : BigInt(decimals));
  if (numerator > denominator) throw new ConfigError(path, 'a fraction of the price cannot be more than 1');
  return { numerator, denominator };
}

/** A fraction of a bound that one account may take: more than 0, at most 1 (`0.25`). */
export function readShare(value: unknown, path: string): number {
  const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  const share = /^(0|1)(\.\d{1,6})?$/.test(text) ? Number(text) : NaN;
  if (!(share > 0 && share <= 1)) throw new ConfigError(path, 'expected a fraction greater than 0 and at most 1, such as 0.25');
  return share;
}
