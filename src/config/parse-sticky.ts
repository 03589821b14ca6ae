import { readShare } from './parse-response-cache.ts';
import { at, checkKeys, optInt, readMapping } from './read-fields.ts';

/** `sticky:` — the bounds of sticky routing's memory (docs/routing.md, "Sticky routing"; docs/security.md). */
export interface StickyConfig {
  /** The in-process store's bound on all remembered conversations together (a fleet's Redis is bounded by its own maxmemory). */
  maxEntries: number;
  /**
   * The most of `maxEntries` one account's conversations may take (0 < share <= 1): past it
   * an account's new entries evict its own least recently used, never another account's. In
   * a fleet, the same bound per account in Redis.
   */
  accountShare: number;
}

export const STICKY_DEFAULTS: StickyConfig = { maxEntries: 100_000, accountShare: 0.25 };

export function parseSticky(value: unknown, path: string): StickyConfig {
  if (value === undefined || value === null) return STICKY_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, ['max_entries', 'account_share'], path);
  return {
    maxEntries: optInt(fields, 'max_entries', path, 1) ?? STICKY_DEFAULTS.maxEntries,
    accountShare:
      fields.account_share === undefined || fields.account_share === null
        ? STICKY_DEFAULTS.accountShare
        : readShare(fields.account_share, at(path, 'account_share')),
  };
}

/** The most entries one account may hold: its share of the whole, at least 1. */
export function maxEntriesPerAccount(config: StickyConfig): number {
  return Math.max(1, Math.floor(config.maxEntries * config.accountShare));
}
