import type pg from 'pg';
import { memberBudgetReset, type LoadedSpendState, type PeriodDays } from '../spend-state.ts';
import type { KeyLimitReset } from '../account-records.ts';
import type { HoldRecord, SettlementRecord } from '../ledger-records.ts';
import { postgresUnavailable } from './postgres-pool.ts';
import { settleBatch } from './postgres-settlement.ts';
import { PostgresRecordNames } from './postgres-record-names.ts';
import { namesOf } from '../generation-row.ts';
import type { RefusalCount } from '../refusal-records.ts';
import { PostgresRefusalCounts } from './postgres-refusal-counts.ts';

const SQL = {
  spend: `SELECT k.account_id, a.balance_nanos, a.is_active AS account_active, k.usage_nanos, k.limit_nanos, k.limit_reset,
      k.is_active AS key_active, k.expires_at, a.budget_nanos, a.budget_reset,
      k.member_id, m.budget_nanos AS member_budget_nanos, m.budget_reset AS member_budget_reset
    FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN members m ON m.id = k.member_id WHERE k.hash = $1`,
  // What a key spent on the days of its limit's period (KeyUsageRepository.costOnDays, in the same snapshot).
  periodUsage: `SELECT coalesce(sum(cost_nanos), 0)::text AS cost FROM usage_daily_keys
    WHERE account_id = $1 AND key_hash = $2 AND day = ANY($3::text[])`,
  // What the account spent in its budget's window (every key's), or its whole usage.
  accountPeriodUsage: `SELECT coalesce(sum(cost_nanos), 0)::text AS cost FROM usage_daily_keys WHERE account_id = $1 AND day = ANY($2::text[])`,
  accountUsage: 'SELECT coalesce(sum(usage_nanos), 0)::text AS cost FROM api_keys WHERE account_id = $1',
  // What a member spent in their budget's window (every key they hold), or those keys' whole usage.
  memberPeriodUsage: `SELECT coalesce(sum(u.cost_nanos), 0)::text AS cost FROM api_keys k
    JOIN usage_daily_keys u ON u.account_id = k.account_id AND u.key_hash = k.hash AND u.day = ANY($2::text[]) WHERE k.member_id = $1`,
  memberUsage: 'SELECT coalesce(sum(usage_nanos), 0)::text AS cost FROM api_keys WHERE member_id = $1',
  // Charged: the generation record written with a cost (its charge is written with it: postgres-settlement.ts).
  charged: 'SELECT id AS generation_id FROM generation_records WHERE id = ANY($1::text[]) AND cost_nanos <> 0',
};

/**
 * LedgerStore's settlement for Postgres: the same batch semantics in one transaction
 * (hold rows written, settled holds removed, charges in the ledger, generation records,
 * the daily rollups upserted, balances and key usage moved once per account and key),
 * as a few set-based statements whatever the batch's size, and exact when a batch is
 * sent again (postgres-settlement.ts). Money travels as decimal text into BIGINT columns.
 */
export class PostgresLedger {
  private readonly pool: pg.Pool;
  private readonly refusals = new PostgresRefusalCounts();
  private readonly names: PostgresRecordNames;

  constructor(pool: pg.Pool) {
    this.pool = pool;
    this.names = new PostgresRecordNames(pool);
  }

  async settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals: readonly RefusalCount[] = []): Promise<void> {
    if (holds.length === 0 && batch.length === 0 && refusals.length === 0) return;
    if (batch.length > 0) await this.names.ensure(batch.flatMap(namesOf));
    await this.transaction('READ COMMITTED', async (c) => {
      if (holds.length > 0 || batch.length > 0) await settleBatch(c, holds, batch, this.names.ref);
      if (refusals.length > 0) await this.refusals.write(c, refusals);
    });
  }

  /**
   * The loader of RedisCreditHolds: a key's spend state, the usage its limit caps (with a
   * reset: usage_daily_keys over the days `periodDays` gives, by the holds' clock) and which
   * of `settlingIds` the ledger already charged, read in one snapshot (REPEATABLE READ), so they agree.
   */
  async spendState(keyHash: string, settlingIds: readonly string[], periodDays: PeriodDays): Promise<LoadedSpendState | undefined> {
    return this.transaction('REPEATABLE READ', async (c) => {
      const row = (await c.query(SQL.spend, [keyHash])).rows[0] as
        | {
            account_id: string;
            balance_nanos: string;
            account_active: string;
            usage_nanos: string;
            limit_nanos: string | null;
            limit_reset: KeyLimitReset | null;
            key_active: string;
            expires_at: string | null;
            budget_nanos: string | null;
            budget_reset: KeyLimitReset | null;
            member_id: string | null;
            member_budget_nanos: string | null;
            member_budget_reset: string | null;
          }
        | undefined;
      if (row === undefined) return undefined;
      const reset = row.limit_reset;
      const limitUsage =
        reset === null
          ? row.usage_nanos
          : (await c.query<{ cost: string }>(SQL.periodUsage, [row.account_id, keyHash, [...periodDays(reset)]])).rows[0]!.cost;
      const budgetUsage =
        row.budget_nanos === null
          ? '0'
          : row.budget_reset === null
            ? (await c.query<{ cost: string }>(SQL.accountUsage, [row.account_id])).rows[0]!.cost
            : (await c.query<{ cost: string }>(SQL.accountPeriodUsage, [row.account_id, [...periodDays(row.budget_reset)]])).rows[0]!.cost;
      const memberBudget = row.member_id === null || row.member_budget_nanos === null ? null : BigInt(row.member_budget_nanos);
      const memberReset = memberBudgetReset(row.member_budget_reset);
      const memberUsage =
        memberBudget === null || row.member_id === null
          ? '0'
          : memberReset === null
            ? (await c.query<{ cost: string }>(SQL.memberUsage, [row.member_id])).rows[0]!.cost
            : (await c.query<{ cost: string }>(SQL.memberPeriodUsage, [row.member_id, [...periodDays(memberReset)]])).rows[0]!.cost;
      const charged =
        settlingIds.length === 0
          ? []
          : (await c.query<{ generation_id: string }>(SQL.charged, [settlingIds])).rows.map((r) => r.generation_id);
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
        budgetNanos: row.budget_nanos === null ? null : BigInt(row.budget_nanos),
        budgetReset: row.budget_reset,
        budgetUsageNanos: BigInt(budgetUsage),
        memberId: row.member_id,
        memberBudgetNanos: memberBudget,
        memberBudgetReset: memberReset,
        memberBudgetUsageNanos: BigInt(memberUsage),
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
