// Rate-limit tiers. The table comes from the config (`tiers:`), merged over these defaults;
// an account may carry overrides of its own (enterprise contracts).

export interface TierLimits {
  id: string;
  name: string;
  /** Requests per minute per key and model (bursts up to this many at once). */
  requestsPerMinute: number;
  /** Requests per UTC day per key, across models; null for no daily cap. */
  requestsPerDay: number | null;
  /** Requests per minute per account, across its keys: more keys do not raise capacity. Null: no cap. */
  accountRequestsPerMinute: number | null;
  /** Models this tier may call (`*` wildcards); null for every model. */
  models: string[] | null;
  /** Per-model requests-per-minute, overriding `requestsPerMinute` for those models. */
  modelRequestsPerMinute: Record<string, number>;
  /**
   * The largest model-call body a key of this tier may send (bytes); null: the server's
   * `body_limit_bytes`. Refused (413) from the Content-Length, before the body is read.
   */
  maxBodyBytes: number | null;
  /** Days this tier's accounts' generation records are kept; absent: `records.retention_days`. */
  retentionDays?: number;
}

export type TierTable = ReadonlyMap<string, TierLimits>;

/** Fields an account override may set. */
export interface LimitsOverride {
  requests_per_minute?: number;
  requests_per_day?: number | null;
  account_requests_per_minute?: number | null;
}

export const DEFAULT_TIERS: readonly TierLimits[] = [
  {
    id: 'free',
    name: 'Free',
    requestsPerMinute: 20,
    requestsPerDay: 200,
    accountRequestsPerMinute: 40,
    models: null,
    modelRequestsPerMinute: {},
    maxBodyBytes: 4 * 1024 * 1024,
  },
  {
    id: 'tier2',
    name: 'Tier 2',
    requestsPerMinute: 600,
    requestsPerDay: null,
    accountRequestsPerMinute: 3000,
    models: null,
    modelRequestsPerMinute: {},
    maxBodyBytes: null,
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    requestsPerMinute: 10_000,
    requestsPerDay: null,
    accountRequestsPerMinute: null,
    models: null,
    modelRequestsPerMinute: {},
    maxBodyBytes: null,
  },
];

/** The limits that apply to one account: its tier with the account's own overrides on top. */
export function effectiveLimits(tier: TierLimits, override: LimitsOverride | null): TierLimits {
  if (override === null) return tier;
  return {
    ...tier,
    requestsPerMinute: override.requests_per_minute ?? tier.requestsPerMinute,
    requestsPerDay: override.requests_per_day === undefined ? tier.requestsPerDay : override.requests_per_day,
    accountRequestsPerMinute:
      override.account_requests_per_minute === undefined ? tier.accountRequestsPerMinute : override.account_requests_per_minute,
  };
}

/** Whether a tier may call a model (`*` matches any run of characters). */
export function tierAllowsModel(tier: TierLimits, modelId: string): boolean {
  if (tier.models === null) return true;
  return compiledPatterns(tier.models).some((parts) => globMatch(parts, modelId));
}

/** Each tier's patterns split at their `*` once (by the tier's list, which a reload replaces), not on every attempt. */
const compiled = new WeakMap<readonly string[], readonly (readonly string[])[]>();

function compiledPatterns(models: readonly string[]): readonly (readonly string[])[] {
  let parts = compiled.get(models);
  if (parts === undefined) {
    parts = models.map((pattern) => pattern.split('*'));
    compiled.set(models, parts);
  }
  return parts;
}

/** Whether `text` matches a pattern split at its `*`s (`*` matches any run of characters, `/` included). */
export function globMatch(parts: readonly string[], text: string): boolean {
  if (parts.length === 1) return parts[0] === text;
  if (!text.startsWith(parts[0]!) || !text.endsWith(parts.at(-1)!)) return false;
  let pos = parts[0]!.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const at = text.indexOf(parts[i]!, pos);
    if (at === -1) return false;
    pos = at + parts[i]!.length;
  }
  return pos <= text.length - parts.at(-1)!.length;
}
