import type { UsageRepository } from '../store-contract.ts';
import type { UsageGrouping, UsageRange, UsageRow } from '../usage-records.ts';
import { msOrNull } from '../generation-records.ts';
import {
  cursorParams,
  figures,
  GROUP_COLUMN,
  MEMBER_KEYS,
  SUMS,
  type Row,
  type UsageFigures,
  type UsageGroup,
  type UsageGroupRow,
  type UsagePage,
} from '../usage-records.ts';
import type { PgExecutor } from './pg-executor.ts';

// usage-store.ts (the daily rollups) and usage-query.ts (one account's records) for
// Postgres: the same sums and groups, ties ordered byte-wise as in SQLite.

const BY_ACCOUNT: Record<UsageGrouping, { expr: string; order: string }> = {
  day: { expr: 'substr(created_at, 1, 10)', order: 'substr(created_at, 1, 10) COLLATE "C"' },
  model: { expr: `coalesce(model, '(none)')`, order: `cost DESC, coalesce(model, '(none)') COLLATE "C"` },
  key: { expr: 'key_hash', order: 'cost DESC, key_hash COLLATE "C"' },
};

export class PostgresUsageRepository implements UsageRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async aggregate(
    accountId: string | null,
    group: UsageGroup,
    fromDay: string,
    toDay: string,
    page: UsagePage = { after: null, limit: -1 },
    memberId?: string,
  ): Promise<UsageGroupRow[]> {
    const col = GROUP_COLUMN[group];
    const order = group === 'day' ? `${col} COLLATE "C"` : `cost_nanos DESC, ${col} COLLATE "C"`;
    const scoped = accountId !== null;
    const member = scoped && memberId !== undefined;
    const table = scoped ? 'usage_daily' : group === 'account' || group === 'key' ? 'usage_daily_keys' : 'usage_daily_global';
    const sql = `SELECT ${col} AS grp, ${SUMS} FROM ${table}
      WHERE ${scoped ? 'account_id = $3' : '$3::text IS NULL'} AND day BETWEEN $1 AND $2 AND ($4::text IS NULL OR ${col} COLLATE "C" > $4)${member ? ` AND ${MEMBER_KEYS.replace('?', '$8')}` : ''}
      GROUP BY ${col} HAVING ($5::numeric IS NULL OR sum(cost_nanos) < $5 OR (sum(cost_nanos) = $5 AND ${col} COLLATE "C" > $6::text))
      ORDER BY ${order} LIMIT $7`;
    const [afterGroup, afterCost, afterCostGroup] = cursorParams(page.after);
    const params = [fromDay, toDay, accountId, afterGroup, afterCost, afterCostGroup, page.limit < 0 ? null : page.limit];
    const rows = (await this.pg.query<Row>(sql, member ? [...params, memberId] : params)).rows;
    return rows.map((r) => ({ group: r.grp === '' || r.grp === null ? null : String(r.grp), ...figures(r) }));
  }

  async totals(accountId: string | null, fromDay: string, toDay: string, memberId?: string): Promise<UsageFigures> {
    const res =
      accountId !== null && memberId !== undefined
        ? await this.pg.query<Row>(
            `SELECT ${SUMS} FROM usage_daily WHERE account_id = $1 AND day BETWEEN $2 AND $3 AND ${MEMBER_KEYS.replace('?', '$4')}`,
            [accountId, fromDay, toDay, memberId],
          )
        : accountId !== null
          ? await this.pg.query<Row>(`SELECT ${SUMS} FROM usage_daily WHERE account_id = $1 AND day BETWEEN $2 AND $3`, [
              accountId,
              fromDay,
              toDay,
            ])
          : await this.pg.query<Row>(`SELECT ${SUMS} FROM usage_daily_global WHERE day BETWEEN $1 AND $2`, [fromDay, toDay]);
    return figures(res.rows[0]!);
  }

  async byAccount(accountId: string, by: UsageGrouping, range: UsageRange = {}): Promise<UsageRow[]> {
    const { expr, order } = BY_ACCOUNT[by];
    const sql = `SELECT ${expr} AS grp, count(*) AS requests,
        sum(CASE WHEN status = 'success' THEN 0 ELSE 1 END) AS errors,
        coalesce(sum(tokens_prompt), 0) AS prompt, coalesce(sum(tokens_completion), 0) AS completion,
        coalesce(sum(cost_nanos), 0) AS cost
      FROM generations
      WHERE account_ref = (SELECT id FROM record_names WHERE name = $1) AND ($2::bigint IS NULL OR created_ms >= $2) AND ($3::bigint IS NULL OR created_ms < $3)
      GROUP BY ${expr} ORDER BY ${order}`;
    const rows = (await this.pg.query<Record<string, bigint | string>>(sql, [accountId, msOrNull(range.since), msOrNull(range.until)]))
      .rows;
    return rows.map((r) => ({
      group: String(r.grp),
      requests: Number(r.requests),
      errors: Number(r.errors),
      tokensPrompt: Number(r.prompt),
      tokensCompletion: Number(r.completion),
      costNanos: r.cost as bigint,
    }));
  }
}
