import { toLedgerEntry, type LedgerEntry, type LedgerRow } from '../ledger-records.ts';
import type { AdminRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

const SQL = {
  // Ids in creation order (created_at, id), byte-wise; the search matches the id or the name, any case.
  accountIds: `SELECT id, created_at FROM accounts
    WHERE ($1::text IS NULL OR id = $5 OR name ILIKE '%' || $1 || '%' ESCAPE '\\')
      AND ($2::text IS NULL OR (created_at COLLATE "C", id COLLATE "C") > ($2, $3::text))
    ORDER BY created_at COLLATE "C", id COLLATE "C" LIMIT $4`,
  rename: 'UPDATE accounts SET name = $1 WHERE id = $2',
  ledger: 'SELECT * FROM ledger WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3',
};

/** admin-store.ts for Postgres. */
export class PostgresAdminRepository implements AdminRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async accountIds(
    search: string | null,
    after: { createdAt: string; id: string } | null,
    limit: number,
  ): Promise<Array<{ id: string; createdAt: string }>> {
    const pattern = search === null ? null : search.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = (
      await this.pg.query<{ id: string; created_at: string }>(SQL.accountIds, [
        pattern,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit,
        search,
      ])
    ).rows;
    return rows.map((r) => ({ id: r.id, createdAt: r.created_at }));
  }

  async rename(accountId: string, name: string): Promise<boolean> {
    return (await this.pg.query(SQL.rename, [name, accountId])).rowCount > 0;
  }

  async ledger(accountId: string, beforeId: number | null, limit: number): Promise<LedgerEntry[]> {
    return (await this.pg.query<LedgerRow>(SQL.ledger, [accountId, beforeId, limit])).rows.map(toLedgerEntry);
  }
}
