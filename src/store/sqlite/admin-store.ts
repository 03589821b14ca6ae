import type { DatabaseSync } from 'node:sqlite';
import { type LedgerEntry, type LedgerRow, toLedgerEntry } from '../ledger-records.ts';

// What the admin API reads and writes beyond the account store: the account list with
// search and keyset pagination, renaming, and an account's ledger page by page.

export class AdminStore {
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.stmts = {
      // Ids in creation order (created_at, id); the search matches the id or the name, any case.
      accountIds: db.prepare(`SELECT id, created_at FROM accounts
        WHERE (?1 IS NULL OR id = ?5 OR name LIKE '%' || ?1 || '%' ESCAPE '\\')
          AND (?2 IS NULL OR (created_at, id) > (?2, ?3))
        ORDER BY created_at, id LIMIT ?4`),
      rename: db.prepare('UPDATE accounts SET name = ? WHERE id = ?'),
      ledger: db.prepare(`SELECT * FROM ledger WHERE account_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`),
    };
    this.stmts.ledger.setReadBigInts(true);
  }

  /** Account ids (with their creation time, the cursor) in creation order, after the cursor. The id matches as given; the name's search escapes LIKE's wildcards. */
  accountIds(
    search: string | null,
    after: { createdAt: string; id: string } | null,
    limit: number,
  ): Array<{ id: string; createdAt: string }> {
    const pattern = search === null ? null : search.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = this.stmts.accountIds.all(pattern, after?.createdAt ?? null, after?.id ?? null, limit, search) as Array<{
      id: string;
      created_at: string;
    }>;
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  rename(accountId: string, name: string): boolean {
    return Number(this.stmts.rename.run(name, accountId).changes) > 0;
  }

  /** An account's ledger, newest first, entries before `beforeId`. */
  ledger(accountId: string, beforeId: number | null, limit: number): LedgerEntry[] {
    const rows = this.stmts.ledger.all(accountId, beforeId, beforeId, limit) as unknown as LedgerRow[];
    return rows.map(toLedgerEntry);
  }
}
