import type { GenerationRecord } from './generation-records.ts';
import type { UsageFigures } from './usage-records.ts';

// The daily usage rollups: usage_daily, one row per UTC day × account × key × model ×
// provider × app title, and two coarser tables for the all-accounts views, moved in the
// settlement transaction (ledger-store.ts), one upsert per distinct row per batch.
// Absent model, provider or title are ''.

/** One row of the fine rollup table: its dimensions and the summed figures. */
export interface RollupRow extends UsageFigures {
  day: string;
  accountId: string;
  keyHash: string;
  model: string;
  provider: string;
  appTitle: string;
}

const FIGURES = [
  'requests',
  'errors',
  'tokens_prompt',
  'tokens_completion',
  'tokens_cache_read',
  'tokens_cache_write',
  'tokens_reasoning',
  'cost_nanos',
  'latency_ms_sum',
  'latency_count',
];

function upsertSql(table: string, keys: readonly string[]): string {
  const cols = [...keys, ...FIGURES];
  return `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${FIGURES.map((f) => `${f} = ${f} + excluded.${f}`).join(', ')}`;
}

/** The fine rollups: day × account × key × model × provider × app title (one account's views). */
export const ROLLUP_UPSERT_SQL = upsertSql('usage_daily', ['day', 'account_id', 'key_hash', 'model', 'provider', 'app_title']);
/** day × model × provider × app title: the all-accounts views. */
export const GLOBAL_ROLLUP_UPSERT_SQL = upsertSql('usage_daily_global', ['day', 'model', 'provider', 'app_title']);
/** day × account × key: the all-accounts views per account or per key. */
export const KEYS_ROLLUP_UPSERT_SQL = upsertSql('usage_daily_keys', ['day', 'account_id', 'key_hash']);

/** Adds one settled record to the batch's in-memory rollup rows. */
export function addToRollup(rows: Map<string, RollupRow>, r: GenerationRecord): void {
  const day = r.createdAt.slice(0, 10);
  const model = r.model ?? '';
  const provider = r.provider ?? '';
  const appTitle = r.xTitle ?? '';
  const id = `${day}\u0000${r.accountId}\u0000${r.keyHash}\u0000${model}\u0000${provider}\u0000${appTitle}`;
  let row = rows.get(id);
  if (row === undefined) {
    row = {
      day,
      accountId: r.accountId,
      keyHash: r.keyHash,
      model,
      provider,
      appTitle,
      requests: 0,
      errors: 0,
      tokensPrompt: 0,
      tokensCompletion: 0,
      tokensCacheRead: 0,
      tokensCacheWrite: 0,
      tokensReasoning: 0,
      costNanos: 0n,
      latencyMsSum: 0,
      latencyCount: 0,
    };
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

function figureParams(r: RollupRow): Array<number | bigint> {
  return [
    r.requests,
    r.errors,
    r.tokensPrompt,
    r.tokensCompletion,
    r.tokensCacheRead,
    r.tokensCacheWrite,
    r.tokensReasoning,
    r.costNanos,
    r.latencyMsSum,
    r.latencyCount,
  ];
}

export function rollupParams(r: RollupRow): Array<string | number | bigint> {
  return [r.day, r.accountId, r.keyHash, r.model, r.provider, r.appTitle, ...figureParams(r)];
}

export function globalRollupParams(r: RollupRow): Array<string | number | bigint> {
  return [r.day, r.model, r.provider, r.appTitle, ...figureParams(r)];
}

export function keysRollupParams(r: RollupRow): Array<string | number | bigint> {
  return [r.day, r.accountId, r.keyHash, ...figureParams(r)];
}

/** The batch's fine rows folded into the coarser tables' rows (blank dimensions ''). */
export function coarseRollups(rows: Iterable<RollupRow>): { global: RollupRow[]; keys: RollupRow[] } {
  const global = new Map<string, RollupRow>();
  const keys = new Map<string, RollupRow>();
  for (const r of rows) {
    fold(global, `${r.day}\u0000${r.model}\u0000${r.provider}\u0000${r.appTitle}`, { ...r, accountId: '', keyHash: '' });
    fold(keys, `${r.day}\u0000${r.accountId}\u0000${r.keyHash}`, { ...r, model: '', provider: '', appTitle: '' });
  }
  return { global: [...global.values()], keys: [...keys.values()] };
}

function fold(into: Map<string, RollupRow>, id: string, r: RollupRow): void {
  const row = into.get(id);
  if (row === undefined) {
    into.set(id, r);
    return;
  }
  addFigures(row, r);
}

/** Adds `from`'s figures into `row`. */
function addFigures(row: UsageFigures, from: UsageFigures): void {
  row.requests += from.requests;
  row.errors += from.errors;
  row.tokensPrompt += from.tokensPrompt;
  row.tokensCompletion += from.tokensCompletion;
  row.tokensCacheRead += from.tokensCacheRead;
  row.tokensCacheWrite += from.tokensCacheWrite;
  row.tokensReasoning += from.tokensReasoning;
  row.costNanos += from.costNanos;
  row.latencyMsSum += from.latencyMsSum;
  row.latencyCount += from.latencyCount;
}
