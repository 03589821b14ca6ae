// Refused requests (admission refusals: rate limits, credits, unknown models, a management
// key calling a model...) are counted, never stored one row each: per key × UTC minute ×
// reason (the error code, from the catalogue, never a client's string), in the table
// refusal_counts. A flood of refusals moves one row per key, reason and minute, batched
// with the settlements (billing/settlement-queue.ts). Rows older than
// REFUSAL_RETENTION_DAYS are removed as new counts are written (at most once an hour).
// The SQLite engine's writer and reader: sqlite/refusal-counts.ts.

/** One counted row: `count` refusals of `reason` for a key in one minute. */
export interface RefusalCount {
  accountId: string;
  keyHash: string;
  /** The UTC minute, `YYYY-MM-DDTHH:MM` (sorts as text). */
  minute: string;
  /** The refusal's error code (errors/error-catalogue.ts). */
  reason: string;
  count: number;
}

/** How long refusal counts are kept. */
export const REFUSAL_RETENTION_DAYS = 7;
const RETENTION_MS = REFUSAL_RETENTION_DAYS * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/** The minute `at` falls in, as stored. */
export function refusalMinute(at: number): string {
  return new Date(at).toISOString().slice(0, 16);
}

/** What to list: one account, one key, minutes from..to (inclusive, `YYYY-MM-DDTHH:MM`). */
export interface RefusalFilter {
  accountId?: string;
  keyHash?: string;
  from?: string;
  to?: string;
}

/** A page's position: the last row's (minute, key hash, reason); pages go newest first. */
export type RefusalCursor = [minute: string, keyHash: string, reason: string];

export interface RefusalCountRow {
  account_id: string;
  key_hash: string;
  minute: string;
  reason: string;
  count: number | bigint;
}

export function toRefusalCount(r: RefusalCountRow): RefusalCount {
  return { accountId: r.account_id, keyHash: r.key_hash, minute: r.minute, reason: r.reason, count: Number(r.count) };
}

/** When the counts written at `latestMinute` should also prune, and the bound to prune before (null: not now). */
export class RefusalPruneClock {
  private lastPrunedAt = 0;

  due(counts: readonly RefusalCount[]): string | null {
    let latest = '';
    for (const c of counts) if (c.minute > latest) latest = c.minute;
    if (latest === '') return null;
    const at = Date.parse(`${latest}:00Z`);
    if (at - this.lastPrunedAt < PRUNE_EVERY_MS) return null;
    this.lastPrunedAt = at;
    return refusalMinute(at - RETENTION_MS);
  }
}

/** Adds one refusal to counts being gathered (keyed by key, minute and reason). */
export function addRefusal(
  into: Map<string, RefusalCount>,
  accountId: string,
  keyHash: string,
  reason: string,
  at: number,
  count = 1,
): void {
  const minute = refusalMinute(at);
  const id = `${keyHash}\u0000${minute}\u0000${reason}`;
  const known = into.get(id);
  if (known === undefined) into.set(id, { accountId, keyHash, minute, reason, count });
  else known.count += count;
}
