import { DEFAULT_TIERS, type TierLimits } from './tier-limits.ts';
import { ConfigError } from './config-error.ts';
import { readRetentionDays } from './parse-records.ts';
import { at, checkKeys, optInt, optString, optStringList, readInt, readMapping, type Fields } from './read-fields.ts';

const TIER_KEYS = [
  'name',
  'requests_per_minute',
  'requests_per_day',
  'account_requests_per_minute',
  'models',
  'model_limits',
  'max_body_bytes',
  'retention_days',
] as const;

/**
 * `tiers:` — each entry overrides the default tier of that id field by field, or defines a
 * new tier. `requests_per_day: null` (or 0) removes a daily cap; the same for the account cap
 * and `max_body_bytes` (then the server's `body_limit_bytes` bounds the tier's bodies).
 */
export function parseTiers(value: unknown, path: string): TierLimits[] {
  const byId = new Map(DEFAULT_TIERS.map((t) => [t.id, { ...t, modelRequestsPerMinute: { ...t.modelRequestsPerMinute } }]));
  if (value === undefined || value === null) return [...byId.values()];
  for (const [id, raw] of Object.entries(readMapping(value, path))) {
    const p = at(path, id);
    if (!/^[a-z0-9_-]+$/.test(id)) throw new ConfigError(p, 'a tier id is lowercase letters, digits, - and _');
    const fields = raw === null ? {} : readMapping(raw, p);
    checkKeys(fields, TIER_KEYS, p);
    const base = byId.get(id);
    const rpm = optInt(fields, 'requests_per_minute', p, 1) ?? base?.requestsPerMinute;
    if (rpm === undefined) throw new ConfigError(at(p, 'requests_per_minute'), 'a new tier needs requests_per_minute');
    byId.set(id, {
      id,
      name: optString(fields, 'name', p) ?? base?.name ?? id,
      requestsPerMinute: rpm,
      requestsPerDay: optionalCap(fields, 'requests_per_day', p, base?.requestsPerDay ?? null),
      accountRequestsPerMinute: optionalCap(fields, 'account_requests_per_minute', p, base?.accountRequestsPerMinute ?? null),
      models: optStringList(fields, 'models', p) ?? base?.models ?? null,
      modelRequestsPerMinute: { ...(base?.modelRequestsPerMinute ?? {}), ...modelLimits(fields.model_limits, at(p, 'model_limits')) },
      maxBodyBytes: optionalCap(fields, 'max_body_bytes', p, base?.maxBodyBytes ?? null),
      ...retention(fields, p, base?.retentionDays),
    });
  }
  return [...byId.values()];
}

/** `retention_days`: the tier's own retention of generation records (absent: records.retention_days). */
function retention(fields: Fields, path: string, fallback: number | undefined): { retentionDays?: number } {
  const days = 'retention_days' in fields ? readRetentionDays(fields.retention_days, at(path, 'retention_days')) : (fallback ?? null);
  return days === null ? {} : { retentionDays: days };
}

function optionalCap(fields: Fields, key: string, path: string, fallback: number | null): number | null {
  if (!(key in fields)) return fallback;
  const v = fields[key];
  if (v === null || v === 0 || v === '0') return null;
  return readInt(v, at(path, key), 1);
}

function modelLimits(value: unknown, path: string): Record<string, number> {
  if (value === undefined || value === null) return {};
  const out: Record<string, number> = {};
  for (const [model, raw] of Object.entries(readMapping(value, path))) {
    const p = at(path, model);
    const fields = readMapping(raw, p);
    checkKeys(fields, ['requests_per_minute'], p);
    out[model] = readInt(fields.requests_per_minute, at(p, 'requests_per_minute'), 1);
  }
  return out;
}
