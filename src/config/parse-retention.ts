import { checkKeys, optInt, readMapping } from './read-fields.ts';
import { readRetentionDays } from './parse-records.ts';

/**
 * `retention:` — how long the governance tables keep their rows (server/governance-retention.ts):
 * webhook deliveries (with their attempts), MCP tool calls and budget alerts. Generation
 * records have their own (`records:`).
 */
export interface RetentionConfig {
  /** Days a webhook delivery (not pending) and its attempts are kept; null: forever. */
  webhookDeliveriesDays: number | null;
  /** Days an MCP tool call row is kept; null: forever. */
  mcpToolCallsDays: number | null;
  /** Days a budget alert row is kept once its window has ended; null: forever. */
  budgetAlertsDays: number | null;
  /** How often the pruning runs. */
  pruneIntervalMs: number;
}

export const RETENTION_DEFAULTS: RetentionConfig = {
  webhookDeliveriesDays: 30,
  mcpToolCallsDays: 30,
  budgetAlertsDays: 90,
  pruneIntervalMs: 3_600_000,
};

export function parseRetention(value: unknown, path: string): RetentionConfig {
  if (value === undefined || value === null) return RETENTION_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, ['webhook_deliveries_days', 'mcp_tool_calls_days', 'budget_alerts_days', 'prune_interval_minutes'], path);
  // Absent: the default; null (or empty): kept forever.
  const days = (key: string, fallback: number | null): number | null =>
    key in fields ? readRetentionDays(fields[key], `${path}.${key}`) : fallback;
  return {
    webhookDeliveriesDays: days('webhook_deliveries_days', RETENTION_DEFAULTS.webhookDeliveriesDays),
    mcpToolCallsDays: days('mcp_tool_calls_days', RETENTION_DEFAULTS.mcpToolCallsDays),
    budgetAlertsDays: days('budget_alerts_days', RETENTION_DEFAULTS.budgetAlertsDays),
    pruneIntervalMs: (optInt(fields, 'prune_interval_minutes', path, 1, 1440) ?? 60) * 60_000,
  };
}
