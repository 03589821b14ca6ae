// Usage figures as the store contract hands them out (store-contract.ts's UsageRepository),
// and the SQL both engines read the daily rollups with.

export type UsageGrouping = 'day' | 'model' | 'key';

export interface UsageRow {
  /** The day (YYYY-MM-DD, UTC), the model id, or the key hash. */
  group: string;
  requests: number;
  errors: number;
  tokensPrompt: number;
  tokensCompletion: number;
  costNanos: bigint;
}

export interface UsageRange {
  /** ISO 8601, inclusive. */
  since?: string;
  /** ISO 8601, exclusive. */
  until?: string;
}

export type UsageGroup = 'day' | 'model' | 'provider' | 'key' | 'app' | 'account';
export const USAGE_GROUPS: readonly UsageGroup[] = ['day', 'model', 'provider', 'key', 'app', 'account'];

export const GROUP_COLUMN: Record<UsageGroup, string> = {
  day: 'day',
  model: 'model',
  provider: 'provider',
  key: 'key_hash',
  app: 'app_title',
  account: 'account_id',
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
    requests: n(r.requests),
    errors: n(r.errors),
    tokensPrompt: n(r.tokens_prompt),
    tokensCompletion: n(r.tokens_completion),
    tokensCacheRead: n(r.tokens_cache_read),
    tokensCacheWrite: n(r.tokens_cache_write),
    tokensReasoning: n(r.tokens_reasoning),
    costNanos: (r.cost_nanos as bigint | null) ?? 0n,
    latencyMsSum: n(r.latency_ms_sum),
    latencyCount: n(r.latency_count),
  };
}
