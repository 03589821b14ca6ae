import type { DatabaseSync, StatementSync } from 'node:sqlite';

// Usage aggregates, read from the daily rollups only, never from the raw generation rows.
// Scope: one account (usage_daily, keyed by account first), or all (null): the coarser
// usage_daily_global (per day, model, provider, app) or usage_daily_keys (per account, key).

export type UsageGroup = 'day' | 'model' | 'provider' | 'key' | 'app' | 'account';
export const USAGE_GROUPS: readonly UsageGroup[] = ['day', 'model', 'provider', 'key', 'app', 'account'];

export const GROUP_COLUMN: Record<UsageGroup, string> = {
  day: 'day', model: 'model', provider: 'provider', key: 'key_hash', app: 'app_title', account: 'account_id',
};

export interface UsageFigures {
  requests: number;
  errors: number;
  tokensPrompt: number;
  tokensCompletion: number;
  tokensCacheRead: number;
  tokensCacheWrite: number;
  tokensReasoning: number;
  costNanos: bigint;
  latencyMsSum: number;
  latencyCount: number;
}

export interface UsageGroupRow extends UsageFigures {
  /** The day (YYYY-MM-DD), model, provider, key hash, app title or account id; null where absent. */
  group: string | null;
}

/**
 * Where a page of groups begins: after this group as stored ('' for an absent one) and,
 * unless grouped by day (day order), after its cost (cost order, highest first).
 */
export type UsageCursor = [group: string] | [costNanos: string, group: string];

/** The position of a row, for the next page. */
export function usageCursorOf(group: UsageGroup, row: UsageGroupRow): UsageCursor {
  return group === 'day' ? [row.group ?? ''] : [row.costNanos.toString(), row.group ?? ''];
}

/** A usage page: at most `limit` groups after `after` (null: from the first). */
export interface UsagePage {
  after: UsageCursor | null;
  limit: number;
}

/** The cursor's values as statement parameters: [day or group, cost, group]. */
export function cursorParams(after: UsageCursor | null): [string | null, bigint | null, string | null] {
  if (after === null) return [null, null, null];
  return after.length === 1 ? [after[0], null, null] : [null, BigInt(after[0]), after[1]];
}

export const SUMS = `sum(requests) AS requests, sum(errors) AS errors, sum(tokens_prompt) AS tokens_prompt,
  sum(tokens_completion) AS tokens_completion, sum(tokens_cache_read) AS tokens_cache_read,
  sum(tokens_cache_write) AS tokens_cache_write, sum(tokens_reasoning) AS tokens_reasoning,
  sum(cost_nanos) AS cost_nanos, sum(latency_ms_sum) AS latency_ms_sum, sum(latency_count) AS latency_count`;

/** One member's keys (api_keys.member_id, migration 15): the rollups of an account hold its keys' hashes. */
export const MEMBER_KEYS = 'key_hash IN (SELECT hash FROM api_keys WHERE member_id = ?)';

export type Row = Record<string, string | bigint | null>;

export function figures(r: Row): UsageFigures {
  const n = (v: unknown): number => Number(v ?? 0);
  return {
    requests: n(r.requests), errors: n(r.errors), tokensPrompt: n(r.tokens_prompt), tokensCompletion: n(r.tokens_completion),
    tokensCacheRead: n(r.tokens_cache_read), tokensCacheWrite: n(r.tokens_cache_write), tokensReasoning: n(r.tokens_reasoning),
    costNanos: (r.cost_nanos as bigint | null) ?? 0n, latencyMsSum: n(r.latency_ms_sum), latencyCount: n(r.latency_count),
  };
}

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
  aggregate(accountId: string | null, group: UsageGroup, fromDay: string, toDay: string, page: UsagePage = { after: null, limit: -1 }, memberId?: string): UsageGroupRow[] {
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
      stmt = this.db.prepare(accountId !== null
        ? `SELECT ${SUMS} FROM usage_daily WHERE account_id = ? AND day BETWEEN ? AND ?${member ? ` AND ${MEMBER_KEYS}` : ''}`
        : `SELECT ${SUMS} FROM usage_daily_global WHERE day BETWEEN ? AND ?`);
      stmt.setReadBigInts(true);
      this.grouped.set(key, stmt);
    }
    const row = (accountId === null ? stmt.get(fromDay, toDay) : member ? stmt.get(accountId, fromDay, toDay, memberId) : stmt.get(accountId, fromDay, toDay)) as Row;
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
