import type { KeyLimitReset } from './account-records.ts';

/** What the database says a key and its account may spend (holds in flight are the caller's). */
export interface SpendState {
  balanceNanos: bigint;
  accountActive: boolean;
  usageNanos: bigint;
  limitNanos: bigint | null;
  keyActive: boolean;
  expiresAt: string | null;
  /** The limit's reset period: the limit then caps `keyCostOnDays` over the period, not `usageNanos`. Absent: none. */
  limitReset?: KeyLimitReset | null;
  /** The account's budget (billing/budgets.ts): it caps `accountCostOnDays` over its window, else the account's whole usage. Absent: none. */
  budgetNanos?: bigint | null;
  budgetReset?: KeyLimitReset | null;
  /** The member the key belongs to (null: none) and that member's budget: it caps `memberCostOnDays` over its window. Absent: none. */
  memberId?: string | null;
  memberBudgetNanos?: bigint | null;
  memberBudgetReset?: KeyLimitReset | null;
}

/** A spend state plus which of the asked-about settling charges the ledger already has (one database snapshot). */
export interface LoadedSpendState extends SpendState {
  /** Of the `settlingIds` asked about: those whose charge row is in the ledger (part of the balance read). */
  committedIds: readonly string[];
  limitReset: KeyLimitReset | null;
  /**
   * The usage the key's limit caps, read in the same snapshot: with a reset, what the key
   * spent on the period's days (usage_daily_keys); without, `usageNanos`.
   */
  limitUsageNanos: bigint;
  /** What the account spent in its budget's window (the budget's reset period by the same clock), read in the same snapshot; 0 without a budget. */
  budgetUsageNanos?: bigint;
  /** What the key's member spent (every key of theirs) in their budget's window, read in the same snapshot; 0 without a member budget. */
  memberBudgetUsageNanos?: bigint;
}

/** A member's stored budget window ('daily', 'weekly', 'monthly'; 'none' or NULL: their keys' whole usage) as a key limit's reset. */
export function memberBudgetReset(r: string | null): KeyLimitReset | null {
  return r === 'daily' || r === 'weekly' || r === 'monthly' ? r : null;
}

/**
 * The UTC days (YYYY-MM-DD) of the reset period in force, by the clock of whoever asks for
 * the spend state (the credit holds decide the period; the store only sums its days).
 */
export type PeriodDays = (reset: KeyLimitReset) => readonly string[];

export interface StaleReservation {
  id: string;
  accountId: string;
  keyHash: string;
  amountNanos: bigint;
}

/**
 * The database side of the credit holds of one process on SQLite (billing/credit-reservations.ts):
 * read at each admission, synchronously (the check and the hold run without interleaving).
 * `Stores.inProcessHolds`: the SQLite engine's (sqlite/reservation-store.ts); none on Postgres,
 * whose holds are in Redis.
 */
export interface InProcessHoldData {
  spendState(keyHash: string): SpendState | undefined;
  /** What the key spent on these UTC days (the usage a resetting limit caps). */
  keyCostOnDays(accountId: string, keyHash: string, days: readonly string[]): bigint;
  /** What the account spent on these UTC days, or (days null) over its whole usage: the usage a budget caps. */
  accountCostOnDays(accountId: string, days: readonly string[] | null): bigint;
  /** What the member spent (every key they hold) on these UTC days, or (days null) over those keys' whole usage: the usage a member's budget caps. */
  memberCostOnDays(memberId: string, days: readonly string[] | null): bigint;
  /**
   * Removes hold rows whose requests never settled, each recorded as `interrupted`, nothing
   * charged; `beforeIso` null takes every row (the start-up of the only process on the database).
   */
  releaseStale(beforeIso: string | null, nowIso: string): StaleReservation[];
}
