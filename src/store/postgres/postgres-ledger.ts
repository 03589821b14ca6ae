import type pg from 'pg';
import type { LoadedSpendState, PeriodDays } from '../reservation-store.ts';
import type { KeyLimitReset } from '../account-store.ts';
import type { HoldRecord, SettlementRecord } from '../ledger-store.ts';
import { addToRollup, coarseRollups, globalRollupParams, keysRollupParams, rollupParams, type RollupRow } from '../usage-rollup.ts';
import { postgresUnavailable } from './postgres-pool.ts';

const GENERATION_COLUMNS = ['id', 'account_id', 'key_hash', 'model', 'provider', 'upstream_model', 'upstream_id',
  'endpoint_dialect', 'streamed', 'cancelled', 'status', 'error_code', 'finish_reason', 'native_finish_reason',
  'tokens_prompt', 'tokens_completion', 'tokens_cache_read', 'tokens_cache_write', 'tokens_reasoning',
  'cost_nanos', 'cost_breakdown', 'latency_ms', 'first_token_ms', 'attempts', 'http_referer', 'x_title', 'end_user', 'created_at', 'cache_hit'];

const FIGURES = ['requests', 'errors', 'tokens_prompt', 'tokens_completion', 'tokens_cache_read', 'tokens_cache_write',
  'tokens_reasoning', 'cost_nanos', 'latency_ms_sum', 'latency_count'];

const params = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');

function upsertSql(table: string, keys: readonly string[]): string {
  const cols = [...keys, ...FIGURES];
  return `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${params(cols.length)})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${FIGURES.map((f) => `${f} = ${table}.${f} + EXCLUDED.${f}`).join(', ')}`;
}

const SQL = {
  insertHold: 'INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
  removeHold: 'DELETE FROM reservations WHERE id = $1',
  insertCharge: `INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, note, created_at)
    VALUES ($1, $2, 'charge', $3, $4, NULL, $5)`,
  // A settlement written late may find the 'interrupted' record the stale-hold sweep left: it takes its place.
  insertGeneration: `INSERT INTO generations (${GENERATION_COLUMNS.join(', ')}) VALUES (${params(GENERATION_COLUMNS.length)})
    ON CONFLICT (id) DO UPDATE SET ${GENERATION_COLUMNS.slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
    WHERE generations.error_code = 'interrupted'`,
  moveBalance: 'UPDATE accounts SET balance_nanos = balance_nanos + $1 WHERE id = $2',
  keyUsage: `UPDATE api_keys SET usage_nanos = usage_nanos + $1,
    last_used = CASE WHEN last_used IS NULL OR last_used < $2 THEN $2 ELSE last_used END WHERE hash = $3`,
  rollup: upsertSql('usage_daily', ['day', 'account_id', 'key_hash', 'model', 'provider', 'app_title']),
  globalRollup: upsertSql('usage_daily_global', ['day', 'model', 'provider', 'app_title']),
  keysRollup: upsertSql('usage_daily_keys', ['day', 'account_id', 'key_hash']),
  spend: `SELECT k.account_id, a.balance_nanos, a.is_active AS account_active, k.usage_nanos, k.limit_nanos, k.limit_reset,
      k.is_active AS key_active, k.expires_at
    FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
  // What a key spent on the days of its limit's period (KeyUsageRepository.costOnDays, in the same snapshot).
  periodUsage: `SELECT coalesce(sum(cost_nanos), 0)::text AS cost FROM usage_daily_keys
    WHERE account_id = $1 AND key_hash = $2 AND day = ANY($3::text[])`,
  charged: 'SELECT generation_id FROM ledger WHERE generation_id = ANY($1::text[])',
};

type Value = string | number | bigint | null;
const wire = (values: ReadonlyArray<Value | boolean>): Array<string | number | null> =>
  values.map((v) => (typeof v === 'bigint' ? v.toString() : typeof v === 'boolean' ? (v ? 1 : 0) : v));

/**
 * LedgerStore's settlement for Postgres: the same batch semantics in one transaction
 * (hold rows written, settled holds removed, charges in the ledger, generation records,
 * the daily rollups upserted, balances and key usage moved once per account and key).
 * Money travels as decimal text into BIGINT columns: never a float.
 */
export class PostgresLedger {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[]): Promise<void> {
    if (holds.length === 0 && batch.length === 0) return;
    await this.transaction('READ COMMITTED', async (c) => {
      const q = (sql: string, values: ReadonlyArray<Value | boolean>) => c.query(sql, wire(values));
      for (const h of holds) await q(SQL.insertHold, [h.id, h.accountId, h.keyHash, h.amountNanos, h.createdAt, h.expiresAt]);
      const byAccount = new Map<string, bigint>();
      const byKey = new Map<string, { cost: bigint; at: string }>();
      const rollups = new Map<string, RollupRow>();
      for (const r of batch) {
        if (r.holdRowWritten) await q(SQL.removeHold, [r.id]);
        if (r.costNanos !== 0n) {
          await q(SQL.insertCharge, [r.accountId, r.keyHash, -r.costNanos, r.id, r.createdAt]);
          byAccount.set(r.accountId, (byAccount.get(r.accountId) ?? 0n) + r.costNanos);
        }
        const k = byKey.get(r.keyHash);
        if (k === undefined) byKey.set(r.keyHash, { cost: r.costNanos, at: r.createdAt });
        else {
          k.cost += r.costNanos;
          if (r.createdAt > k.at) k.at = r.createdAt;
        }
        const written = await q(SQL.insertGeneration, [r.id, r.accountId, r.keyHash, r.model, r.provider, r.upstreamModel, r.upstreamId,
          r.dialect, r.streamed, r.cancelled, r.status, r.errorCode, r.finishReason, r.nativeFinishReason,
          r.tokensPrompt, r.tokensCompletion, r.tokensCacheRead, r.tokensCacheWrite, r.tokensReasoning,
          r.costNanos, r.costBreakdown === null ? null : JSON.stringify(r.costBreakdown), r.latencyMs, r.firstTokenMs,
          JSON.stringify(r.attempts), r.httpReferer, r.xTitle, r.endUser, r.createdAt, r.cacheHit === true ? 1 : 0]);
        // A record already settled (no row written) is not counted twice.
        if ((written.rowCount ?? 0) > 0) addToRollup(rollups, r);
      }
      // Rows in a fixed order, so concurrent batches of several instances lock them in the same order (no deadlocks).
      const sorted = <T>(rows: Iterable<T>, key: (r: T) => string) => [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      for (const row of sorted(rollups.values(), (r) => rollupParams(r).slice(0, 6).join('\u0000'))) await q(SQL.rollup, rollupParams(row));
      const coarse = coarseRollups(rollups.values());
      for (const row of sorted(coarse.global, (r) => globalRollupParams(r).slice(0, 4).join('\u0000'))) await q(SQL.globalRollup, globalRollupParams(row));
      for (const row of sorted(coarse.keys, (r) => keysRollupParams(r).slice(0, 3).join('\u0000'))) await q(SQL.keysRollup, keysRollupParams(row));
      for (const [accountId, cost] of sorted(byAccount, ([id]) => id)) await q(SQL.moveBalance, [-cost, accountId]);
      for (const [keyHash, k] of sorted(byKey, ([hash]) => hash)) await q(SQL.keyUsage, [k.cost, k.at, keyHash]);
    });
  }

  /**
   * The loader of RedisCreditHolds: a key's spend state, the usage its limit caps (with a
   * reset: usage_daily_keys over the days `periodDays` gives, by the holds' clock) and which
   * of `settlingIds` the ledger already charged, read in one snapshot (REPEATABLE READ), so they agree.
   */
  async spendState(keyHash: string, settlingIds: readonly string[], periodDays: PeriodDays): Promise<LoadedSpendState | undefined> {
    return this.transaction('REPEATABLE READ', async (c) => {
      const row = (await c.query(SQL.spend, [keyHash])).rows[0] as {
        account_id: string; balance_nanos: string; account_active: string; usage_nanos: string; limit_nanos: string | null;
        limit_reset: KeyLimitReset | null; key_active: string; expires_at: string | null;
      } | undefined;
      if (row === undefined) return undefined;
      const reset = row.limit_reset;
      const limitUsage = reset === null
        ? row.usage_nanos
        : (await c.query<{ cost: string }>(SQL.periodUsage, [row.account_id, keyHash, [...periodDays(reset)]])).rows[0]!.cost;
      const charged = settlingIds.length === 0 ? [] : (await c.query<{ generation_id: string }>(SQL.charged, [settlingIds])).rows.map((r) => r.generation_id);
      return {
        balanceNanos: BigInt(row.balance_nanos),
        accountActive: row.account_active === '1',
        usageNanos: BigInt(row.usage_nanos),
        limitNanos: row.limit_nanos === null ? null : BigInt(row.limit_nanos),
        limitReset: reset,
        limitUsageNanos: BigInt(limitUsage),
        keyActive: row.key_active === '1',
        expiresAt: row.expires_at,
        committedIds: charged,
      };
    });
  }

  private async transaction<T>(isolation: 'READ COMMITTED' | 'REPEATABLE READ', fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw postgresUnavailable(err);
    }
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const result = await fn(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      client.release(true); // a broken connection is not put back
      throw postgresUnavailable(err);
    }
  }
}
