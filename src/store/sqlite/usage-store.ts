import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type UsageGroup,
  GROUP_COLUMN,
  type UsageFigures,
  type UsageGroupRow,
  type UsagePage,
  cursorParams,
  SUMS,
  MEMBER_KEYS,
  type Row,
  figures,
} from '../usage-records.ts';

// Usage aggregates, read from the daily rollups only, never from the raw generation rows.
// Scope: one account (usage_daily, keyed by account first), or all (null): the coarser
// usage_daily_global (per day, model, provider, app) or usage_daily_keys (per account, key).

export class UsageStore {
  private readonly grouped = new Map<string, StatementSync>();
  private readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /**
   * Sums over the days [fromDay, toDay] (inclusive, UTC, YYYY-MM-DD), grouped; ordered by
   * day for `day`, else by cost, highest first (then group). `accountId` null: every account.
   * `page`: the groups after its cursor, at most its limit (keyset: the sums are made for
   * each page, and a group whose cost moves between pages may move across them).
   */
  aggregate(
    accountId: string | null,
    group: UsageGroup,
    fromDay: string,
    toDay: string,
    page: UsagePage = { after: null, limit: -1 },
    memberId?: string,
  ): UsageGroupRow[] {
    const stmt = this.statement(accountId !== null, group, memberId !== undefined);
    const [afterGroup, afterCost, afterCostGroup] = cursorParams(page.after);
    const params = [accountId, fromDay, toDay, afterGroup, afterCost, afterCostGroup, page.limit];
    const rows = (memberId === undefined ? stmt.all(...params) : stmt.all(...params, memberId)) as Row[];
    return rows.map((r) => ({ group: r.grp === '' || r.grp === null ? null : String(r.grp), ...figures(r) }));
  }

  /** The totals over the days [fromDay, toDay]. */
  totals(accountId: string | null, fromDay: string, toDay: string, memberId?: string): UsageFigures {
    const member = memberId !== undefined && accountId !== null;
    const key = `totals:${accountId !== null}:${member}`;
    let stmt = this.grouped.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare(
        accountId !== null
          ? `SELECT ${SUMS} FROM usage_daily WHERE account_id = ? AND day BETWEEN ? AND ?${member ? ` AND ${MEMBER_KEYS}` : ''}`
          : `SELECT ${SUMS} FROM usage_daily_global WHERE day BETWEEN ? AND ?`,
      );
      stmt.setReadBigInts(true);
      this.grouped.set(key, stmt);
    }
    const row = (
      accountId === null
        ? stmt.get(fromDay, toDay)
        : member
          ? stmt.get(accountId, fromDay, toDay, memberId)
          : stmt.get(accountId, fromDay, toDay)
    ) as Row;
    return figures(row);
  }

  private statement(scoped: boolean, group: UsageGroup, member = false): StatementSync {
    const key = `${scoped}:${group}:${member}`;
    let stmt = this.grouped.get(key);
    if (stmt === undefined) {
      const col = GROUP_COLUMN[group];
      const order = group === 'day' ? 'grp' : 'cost_nanos DESC, grp';
      const table = scoped ? 'usage_daily' : group === 'account' || group === 'key' ? 'usage_daily_keys' : 'usage_daily_global';
      stmt = this.db.prepare(`SELECT ${col} AS grp, ${SUMS} FROM ${table}
        WHERE ${scoped ? 'account_id = ?1' : '?1 IS NULL'} AND day BETWEEN ?2 AND ?3 AND (?4 IS NULL OR ${col} > ?4)${scoped && member ? ` AND ${MEMBER_KEYS.replace('?', '?8')}` : ''}
        GROUP BY ${col} HAVING (?5 IS NULL OR sum(cost_nanos) < ?5 OR (sum(cost_nanos) = ?5 AND ${col} > ?6))
        ORDER BY ${order} LIMIT ?7`);
      stmt.setReadBigInts(true);
      this.grouped.set(key, stmt);
    }
    return stmt;
  }
}
