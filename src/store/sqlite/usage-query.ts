import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { msOrNull } from '../generation-records.ts';
import type { UsageGrouping, UsageRow, UsageRange } from '../usage-records.ts';

export const GROUP_SQL: Record<UsageGrouping, { expr: string; order: string }> = {
  day: { expr: 'substr(created_at, 1, 10)', order: 'grp' },
  model: { expr: `coalesce(model, '(none)')`, order: 'cost DESC, grp' },
  key: { expr: 'key_hash', order: 'cost DESC, grp' },
};

/**
 * An account's usage grouped by day, model or key. Reads the generation records for now;
 * the daily rollup table, once it exists, can answer the same question without changing
 * callers (this module is the one place that knows where usage is read from).
 */
export class UsageQuery {
  private readonly stmts: Record<UsageGrouping, StatementSync>;

  constructor(db: DatabaseSync) {
    const prepare = (g: UsageGrouping): StatementSync => {
      const { expr, order } = GROUP_SQL[g];
      const stmt = db.prepare(`SELECT ${expr} AS grp, count(*) AS requests,
          sum(CASE WHEN status = 'success' THEN 0 ELSE 1 END) AS errors,
          coalesce(sum(tokens_prompt), 0) AS prompt, coalesce(sum(tokens_completion), 0) AS completion,
          coalesce(sum(cost_nanos), 0) AS cost
        FROM generations
        WHERE account_ref = (SELECT id FROM record_names WHERE name = ?1) AND (?2 IS NULL OR created_ms >= ?2) AND (?3 IS NULL OR created_ms < ?3)
        GROUP BY grp ORDER BY ${order}`);
      stmt.setReadBigInts(true);
      return stmt;
    };
    this.stmts = { day: prepare('day'), model: prepare('model'), key: prepare('key') };
  }

  byAccount(accountId: string, by: UsageGrouping, range: UsageRange = {}): UsageRow[] {
    const rows = this.stmts[by].all(accountId, msOrNull(range.since), msOrNull(range.until)) as Array<Record<string, bigint | string>>;
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
