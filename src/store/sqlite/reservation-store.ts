import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './open-database.ts';
import type { KeyLimitReset } from '../account-records.ts';
import { KeyPeriodUsage } from './key-period-usage.ts';
import {
  memberBudgetReset,
  type InProcessHoldData,
  type SpendState,
  type LoadedSpendState,
  type PeriodDays,
  type StaleReservation,
} from '../spend-state.ts';

interface SpendRow {
  account_id: string;
  balance_nanos: bigint;
  account_active: bigint;
  limit_nanos: bigint | null;
  usage_nanos: bigint;
  key_active: bigint;
  expires_at: string | null;
  limit_reset: KeyLimitReset | null;
  budget_nanos: bigint | null;
  budget_reset: KeyLimitReset | null;
  member_id: string | null;
  member_budget_nanos: bigint | null;
  member_budget_reset: string | null;
}

/**
 * The database side of credit holds: the spend state read at each admission (one indexed
 * join, no transaction), and the release of hold rows left by requests that never settled.
 * Hold rows are written and removed by the settlement batches (ledger-store.ts).
 */
export class ReservationStore implements InProcessHoldData {
  private readonly db: DatabaseSync;
  private readonly stmts;
  private readonly periodUsage: KeyPeriodUsage;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      spend: db.prepare(`SELECT k.account_id, a.balance_nanos, a.is_active AS account_active,
          k.limit_nanos, k.usage_nanos, k.is_active AS key_active, k.expires_at, k.limit_reset,
          a.budget_nanos, a.budget_reset, k.member_id, m.budget_nanos AS member_budget_nanos, m.budget_reset AS member_budget_reset
        FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN members m ON m.id = k.member_id WHERE k.hash = ?`),
      staleBefore: db.prepare('SELECT id, account_id, key_hash, amount_nanos FROM reservations WHERE expires_at < ?'),
      all: db.prepare('SELECT id, account_id, key_hash, amount_nanos FROM reservations'),
      remove: db.prepare('DELETE FROM reservations WHERE id = ?'),
      addNames: db.prepare(`INSERT INTO record_names (name) VALUES (?), (?), ('interrupted') ON CONFLICT (name) DO NOTHING`),
      // The record's dialect is unknown (NULL: read as ''), nothing was counted nor charged.
      recordInterrupted: db.prepare(`INSERT OR IGNORE INTO generation_records (id, created_ms, account_ref, key_ref, streamed, cancelled,
          cache_hit, is_error, error_code_ref, tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos)
        VALUES (?1, ?4, (SELECT id FROM record_names WHERE name = ?2), (SELECT id FROM record_names WHERE name = ?3), 0, 1, 0, 1,
          (SELECT id FROM record_names WHERE name = 'interrupted'), 0, 0, 0, 0, 0, 0)`),
      count: db.prepare('SELECT count(*) AS n FROM reservations'),
      accountDay: db.prepare('SELECT coalesce(sum(cost_nanos), 0) AS cost FROM usage_daily_keys WHERE day = ? AND account_id = ?'),
      accountTotal: db.prepare('SELECT coalesce(sum(usage_nanos), 0) AS cost FROM api_keys WHERE account_id = ?'),
      // Charged: its generation record written with a cost (the charge is written with it, in
      // the same transaction; an 'interrupted' record costs nothing). Through the record's unique id.
      charged: db.prepare('SELECT 1 AS x FROM generation_records WHERE id = ? AND cost_nanos <> 0'),
      // A member's spend: every key they hold (api_keys_member), per day of the window.
      memberDay: db.prepare(`SELECT coalesce(sum(u.cost_nanos), 0) AS cost FROM api_keys k
        JOIN usage_daily_keys u ON u.day = ? AND u.account_id = k.account_id AND u.key_hash = k.hash WHERE k.member_id = ?`),
      memberTotal: db.prepare('SELECT coalesce(sum(usage_nanos), 0) AS cost FROM api_keys WHERE member_id = ?'),
    };
    this.periodUsage = new KeyPeriodUsage(db);
    this.stmts.spend.setReadBigInts(true);
    this.stmts.staleBefore.setReadBigInts(true);
    this.stmts.all.setReadBigInts(true);
    this.stmts.accountDay.setReadBigInts(true);
    this.stmts.accountTotal.setReadBigInts(true);
    this.stmts.memberDay.setReadBigInts(true);
    this.stmts.memberTotal.setReadBigInts(true);
  }

  spendState(keyHash: string): SpendState | undefined {
    const r = this.stmts.spend.get(keyHash) as SpendRow | undefined;
    return r === undefined ? undefined : spendOf(r);
  }

  /** What the key spent on these UTC days (the usage a resetting limit caps). */
  keyCostOnDays(accountId: string, keyHash: string, days: readonly string[]): bigint {
    return this.periodUsage.costOnDays(accountId, keyHash, days);
  }

  /** What the account spent on these UTC days (every key's), or (days null) over its whole usage: the usage a budget caps. */
  accountCostOnDays(accountId: string, days: readonly string[] | null): bigint {
    if (days === null) return (this.stmts.accountTotal.get(accountId) as { cost: bigint }).cost;
    let sum = 0n;
    for (const d of days) sum += (this.stmts.accountDay.get(d, accountId) as { cost: bigint }).cost;
    return sum;
  }

  /** What the member spent (every key they hold) on these UTC days, or (days null) over those keys' whole usage: the usage a member's budget caps. */
  memberCostOnDays(memberId: string, days: readonly string[] | null): bigint {
    if (days === null) return (this.stmts.memberTotal.get(memberId) as { cost: bigint }).cost;
    let sum = 0n;
    for (const d of days) sum += (this.stmts.memberDay.get(d, memberId) as { cost: bigint }).cost;
    return sum;
  }

  /**
   * The loader of shared (Redis) credit holds over this database: the spend state, the usage
   * its limit caps over the period `periodDays` gives, and which of `settlingIds` the ledger
   * already charged, read in one transaction (one snapshot).
   */
  loadSpendState(keyHash: string, settlingIds: readonly string[], periodDays: PeriodDays): LoadedSpendState | undefined {
    const own = !this.db.isTransaction;
    if (own) this.db.exec('BEGIN'); // deferred: a read snapshot, no write lock
    try {
      const r = this.stmts.spend.get(keyHash) as SpendRow | undefined;
      if (r === undefined) return undefined;
      const state = spendOf(r);
      const reset = r.limit_reset ?? null;
      return {
        ...state,
        limitReset: reset,
        limitUsageNanos: reset === null ? r.usage_nanos : this.periodUsage.costOnDays(r.account_id, keyHash, periodDays(reset)),
        budgetUsageNanos:
          r.budget_nanos === null ? 0n : this.accountCostOnDays(r.account_id, r.budget_reset === null ? null : periodDays(r.budget_reset)),
        memberBudgetUsageNanos:
          state.memberId === null ||
          state.memberId === undefined ||
          state.memberBudgetNanos === null ||
          state.memberBudgetNanos === undefined
            ? 0n
            : this.memberCostOnDays(
                state.memberId,
                state.memberBudgetReset === null || state.memberBudgetReset === undefined ? null : periodDays(state.memberBudgetReset),
              ),
        committedIds: settlingIds.filter((id) => this.stmts.charged.get(id) !== undefined),
      };
    } finally {
      if (own) this.db.exec('COMMIT');
    }
  }

  /**
   * Removes hold rows whose requests never settled (the process died mid-request, or a
   * request outlived its deadline) and leaves an `interrupted` generation record for each.
   * Nothing is charged: the answer never completed, so no charge existed to lose.
   * `beforeIso` null takes every row: the start-up of the only process on this database.
   */
  releaseStale(beforeIso: string | null, nowIso: string): StaleReservation[] {
    return transaction(this.db, () => {
      const rows = (beforeIso === null ? this.stmts.all.all() : this.stmts.staleBefore.all(beforeIso)) as Array<{
        id: string;
        account_id: string;
        key_hash: string;
        amount_nanos: bigint;
      }>;
      for (const r of rows) {
        this.stmts.remove.run(r.id);
        this.stmts.addNames.run(r.account_id, r.key_hash);
        this.stmts.recordInterrupted.run(r.id, r.account_id, r.key_hash, Date.parse(nowIso));
      }
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, keyHash: r.key_hash, amountNanos: r.amount_nanos }));
    });
  }

  count(): number {
    return Number((this.stmts.count.get() as { n: number }).n);
  }
}

function spendOf(r: SpendRow): SpendState {
  return {
    balanceNanos: r.balance_nanos,
    accountActive: r.account_active === 1n,
    usageNanos: r.usage_nanos,
    limitNanos: r.limit_nanos,
    keyActive: r.key_active === 1n,
    expiresAt: r.expires_at,
    limitReset: r.limit_reset,
    budgetNanos: r.budget_nanos,
    budgetReset: r.budget_reset,
    memberId: r.member_id,
    memberBudgetNanos: r.member_id === null ? null : r.member_budget_nanos,
    memberBudgetReset: memberBudgetReset(r.member_budget_reset),
  };
}
