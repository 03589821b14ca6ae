import type { SqlRunner } from './webhook-store.ts';

// Pruning the governance tables by age (the job: server/governance-retention.ts): webhook
// deliveries with their attempts, MCP tool calls and budget alerts, at most `limit` rows a
// step, oldest first, through the indexes migration 23 (and 20) made. One implementation over
// both engines (webhook-store.ts's runner: `?` parameters); the caller runs each step in a
// transaction of its own. Times are ISO 8601 UTC text, compared as text.

export interface GovernancePruneRepository {
  /** Deletes up to `limit` of the oldest deliveries created before `beforeIso` that are no longer pending, with their attempts; returns how many deliveries. */
  webhookDeliveries(beforeIso: string, limit: number): Promise<number>;
  /** Deletes up to `limit` of the oldest MCP tool call rows before `beforeIso`. */
  mcpToolCalls(beforeIso: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` of the oldest budget alert rows created before `beforeIso` whose
   * window began before `windowBeforeIso` (ended: windows are at most a month). Rows without
   * a window (a budget over the whole usage, a low balance) are never deleted: they keep an
   * alert from firing twice.
   */
  budgetAlerts(beforeIso: string, windowBeforeIso: string, limit: number): Promise<number>;
}

export class SqlGovernancePruner implements GovernancePruneRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async webhookDeliveries(beforeIso: string, limit: number): Promise<number> {
    const ids = (
      await this.sql.all(
        `SELECT id FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending'
      ORDER BY created_at, id LIMIT ?`,
        [beforeIso, limit],
      )
    ).map((r) => r.id as string);
    if (ids.length === 0) return 0;
    const list = ids.map(() => '?').join(', ');
    await this.sql.run(`DELETE FROM webhook_attempts WHERE delivery_id IN (${list})`, ids);
    return this.sql.run(`DELETE FROM webhook_deliveries WHERE id IN (${list})`, ids);
  }

  async mcpToolCalls(beforeIso: string, limit: number): Promise<number> {
    const ids = (await this.sql.all('SELECT id FROM mcp_tool_calls WHERE at < ? ORDER BY at, id LIMIT ?', [beforeIso, limit])).map(
      (r) => r.id as string,
    );
    if (ids.length === 0) return 0;
    return this.sql.run(`DELETE FROM mcp_tool_calls WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
  }

  async budgetAlerts(beforeIso: string, windowBeforeIso: string, limit: number): Promise<number> {
    const rows = await this.sql.all(
      `SELECT scope, subject_id, window_start, threshold FROM budget_alerts
      WHERE created_at < ? AND window_start <> '' AND window_start < ? ORDER BY created_at LIMIT ?`,
      [beforeIso, windowBeforeIso, limit],
    );
    let deleted = 0;
    for (const r of rows) {
      deleted += await this.sql.run('DELETE FROM budget_alerts WHERE scope = ? AND subject_id = ? AND window_start = ? AND threshold = ?', [
        r.scope as string,
        r.subject_id as string,
        r.window_start as string,
        Number(r.threshold),
      ]);
    }
    return deleted;
  }
}
