import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type RefusalCount,
  type RefusalFilter,
  type RefusalCursor,
  type RefusalCountRow,
  toRefusalCount,
  RefusalPruneClock,
} from '../refusal-records.ts';

// The refusal counts on SQLite: the upserts of a settlement batch and the admin API's
// reading (what is counted, and for how long: ../refusal-records.ts).

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
    const rows = this.stmt.all(
      filter.accountId ?? null,
      filter.keyHash ?? null,
      filter.from ?? null,
      filter.to ?? null,
      after?.[0] ?? null,
      after?.[1] ?? null,
      after?.[2] ?? null,
      limit,
    ) as unknown as RefusalCountRow[];
    return rows.map(toRefusalCount);
  }
}
