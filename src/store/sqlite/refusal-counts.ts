import type { DatabaseSync, StatementSync } from 'node:sqlite';

// Refused requests (admission refusals: rate limits, credits, unknown models, a management
// key calling a model...) are counted, never stored one row each: per key × UTC minute ×
// reason (the error code, from the catalogue, never a client's string), in the table
// refusal_counts. A flood of refusals moves one row per key, reason and minute, batched
// with the settlements (billing/settlement-queue.ts). Rows older than
// REFUSAL_RETENTION_DAYS are removed as new counts are written (at most once an hour).

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
  account_id: string; key_hash: string; minute: string; reason: string; count: number | bigint;
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

const REFUSAL_UPSERT_SQL = `INSERT INTO refusal_counts (key_hash, minute, reason, account_id, count) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (key_hash, minute, reason) DO UPDATE SET count = refusal_counts.count + excluded.count`;
const REFUSAL_PRUNE_SQL = 'DELETE FROM refusal_counts WHERE minute < ?';

/** The upserts of one settlement transaction (the SQLite ledger's: ledger-store.ts). */
export class RefusalCountWriter {
  private readonly upsert: StatementSync;
  private readonly prune: StatementSync;
  private readonly clock = new RefusalPruneClock();

  constructor(db: DatabaseSync) {
    this.upsert = db.prepare(REFUSAL_UPSERT_SQL);
    this.prune = db.prepare(REFUSAL_PRUNE_SQL);
  }

  write(counts: readonly RefusalCount[]): void {
    for (const c of counts) this.upsert.run(c.keyHash, c.minute, c.reason, c.accountId, c.count);
    const before = this.clock.due(counts);
    if (before !== null) this.prune.run(before);
  }
}

/** The admin API's reading of the counts (newest first, keyset pages). */
export class RefusalCountQuery {
  private readonly stmt: StatementSync;

  constructor(db: DatabaseSync) {
    this.stmt = db.prepare(`SELECT account_id, key_hash, minute, reason, count FROM refusal_counts
      WHERE (?1 IS NULL OR account_id = ?1) AND (?2 IS NULL OR key_hash = ?2) AND (?3 IS NULL OR minute >= ?3) AND (?4 IS NULL OR minute <= ?4)
        AND (?5 IS NULL OR (minute, key_hash, reason) < (?5, ?6, ?7))
      ORDER BY minute DESC, key_hash DESC, reason DESC LIMIT ?8`);
  }

  list(filter: RefusalFilter, after: RefusalCursor | null, limit: number): RefusalCount[] {
    const rows = this.stmt.all(filter.accountId ?? null, filter.keyHash ?? null, filter.from ?? null, filter.to ?? null,
      after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, limit) as unknown as RefusalCountRow[];
    return rows.map(toRefusalCount);
  }
}

/** Adds one refusal to counts being gathered (keyed by key, minute and reason). */
export function addRefusal(into: Map<string, RefusalCount>, accountId: string, keyHash: string, reason: string, at: number, count = 1): void {
  const minute = refusalMinute(at);
  const id = `${keyHash}\u0000${minute}\u0000${reason}`;
  const known = into.get(id);
  if (known === undefined) into.set(id, { accountId, keyHash, minute, reason, count });
  else known.count += count;
}
