import type { GenerationRecord } from './generation-store.ts';

// The daily usage rollups (table usage_daily): one row per UTC day × account × key × model
// × provider × app title, moved in the settlement transaction (ledger-store.ts), one
// upsert per distinct row per batch. Absent model, provider or title are ''.

export interface RollupRow {
  day: string;
  accountId: string;
  keyHash: string;
  model: string;
  provider: string;
  appTitle: string;
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

export const ROLLUP_UPSERT_SQL = `INSERT INTO usage_daily (day, account_id, key_hash, model, provider, app_title, requests, errors,
    tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos, latency_ms_sum, latency_count)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (day, account_id, key_hash, model, provider, app_title) DO UPDATE SET
    requests = requests + excluded.requests, errors = errors + excluded.errors,
    tokens_prompt = tokens_prompt + excluded.tokens_prompt, tokens_completion = tokens_completion + excluded.tokens_completion,
    tokens_cache_read = tokens_cache_read + excluded.tokens_cache_read, tokens_cache_write = tokens_cache_write + excluded.tokens_cache_write,
    tokens_reasoning = tokens_reasoning + excluded.tokens_reasoning, cost_nanos = cost_nanos + excluded.cost_nanos,
    latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum, latency_count = latency_count + excluded.latency_count`;

/** Adds one settled record to the batch's in-memory rollup rows. */
export function addToRollup(rows: Map<string, RollupRow>, r: GenerationRecord): void {
  const day = r.createdAt.slice(0, 10);
  const model = r.model ?? '';
  const provider = r.provider ?? '';
  const appTitle = r.xTitle ?? '';
  const id = JSON.stringify([day, r.accountId, r.keyHash, model, provider, appTitle]);
  let row = rows.get(id);
  if (row === undefined) {
    row = { day, accountId: r.accountId, keyHash: r.keyHash, model, provider, appTitle, requests: 0, errors: 0,
      tokensPrompt: 0, tokensCompletion: 0, tokensCacheRead: 0, tokensCacheWrite: 0, tokensReasoning: 0,
      costNanos: 0n, latencyMsSum: 0, latencyCount: 0 };
    rows.set(id, row);
  }
  row.requests += 1;
  if (r.status === 'error') row.errors += 1;
  row.tokensPrompt += r.tokensPrompt;
  row.tokensCompletion += r.tokensCompletion;
  row.tokensCacheRead += r.tokensCacheRead;
  row.tokensCacheWrite += r.tokensCacheWrite;
  row.tokensReasoning += r.tokensReasoning;
  row.costNanos += r.costNanos;
  if (r.latencyMs !== null) {
    row.latencyMsSum += r.latencyMs;
    row.latencyCount += 1;
  }
}

export function rollupParams(r: RollupRow): Array<string | number | bigint> {
  return [r.day, r.accountId, r.keyHash, r.model, r.provider, r.appTitle, r.requests, r.errors, r.tokensPrompt, r.tokensCompletion,
    r.tokensCacheRead, r.tokensCacheWrite, r.tokensReasoning, r.costNanos, r.latencyMsSum, r.latencyCount];
}
