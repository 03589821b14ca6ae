import { at, checkKeys, readMapping } from './read-fields.ts';
import { ConfigError } from './config-error.ts';

/** `alerts:` — the thresholds of budget.threshold (docs/budgets.md). */
export interface AlertsConfig {
  /** Percentages of a budget or key limit at which budget.threshold fires, unless the budget sets its own. */
  thresholds: readonly number[];
}

export const ALERTS_DEFAULTS: AlertsConfig = { thresholds: [50, 80, 100] };

export function parseAlerts(value: unknown, path: string): AlertsConfig {
  if (value === undefined || value === null) return ALERTS_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, ['thresholds'], path);
  const t = fields.thresholds;
  if (t === undefined || t === null) return ALERTS_DEFAULTS;
  if (!Array.isArray(t) || t.length === 0 || t.length > 10 || !t.every((x) => Number.isInteger(x) && x >= 1 && x <= 100)) {
    throw new ConfigError(at(path, 'thresholds'), 'must be a list of 1 to 10 integer percentages from 1 to 100');
  }
  return { thresholds: [...new Set(t as number[])].sort((a, b) => a - b) };
}
