import { checkKeys, optInt, readInt, readMapping } from './read-fields.ts';

/** `records:` — how long generation records are kept (server/records-retention.ts). */
export interface RecordsConfig {
  /** Days a generation record is kept; null: forever (the default). Tiers and accounts may set their own. */
  retentionDays: number | null;
  /** How often the pruning runs. */
  pruneIntervalMs: number;
}

export const MAX_RETENTION_DAYS = 36_500;
const DEFAULT_PRUNE_INTERVAL_MINUTES = 60;

export function parseRecords(value: unknown, path: string): RecordsConfig {
  const fields = value === undefined || value === null ? {} : readMapping(value, path);
  checkKeys(fields, ['retention_days', 'prune_interval_minutes'], path);
  return {
    retentionDays: readRetentionDays(fields.retention_days, `${path}.retention_days`),
    pruneIntervalMs: (optInt(fields, 'prune_interval_minutes', path, 1, 1440) ?? DEFAULT_PRUNE_INTERVAL_MINUTES) * 60_000,
  };
}

/** A retention in days: 1..36500; null, empty or absent: none of its own. */
export function readRetentionDays(v: unknown, path: string): number | null {
  if (v === undefined || v === null || v === '') return null;
  return readInt(v, path, 1, MAX_RETENTION_DAYS);
}
