import { GatewayError } from '../errors/gateway-error.ts';
import { usdToNanos } from '../money/money.ts';
import type { AccountBudget, KeyLimitReset } from '../store/account-records.ts';
import { isKeyLimitReset, periodEnd, periodStart } from './key-limit-remaining.ts';

// Budgets: what an account or a member (all their keys) may spend per UTC window, enforced by
// the credit holds before the upstream call exactly as a key's limit is (credit-reservations.ts,
// redis-credit-hold-scripts.ts). A budget is {scope, id, amount, reset}; the windows are a
// key limit's periods (key-limit-remaining.ts). An account's budget is stored on the account
// (read here), a member's on the member (member-input.ts), and checked beside it.

export type BudgetScope = 'account' | 'member' | 'key';

/** One budget (or key limit) as the alerts see it. */
export interface Budget {
  scope: BudgetScope;
  /** The account id, member id or key hash. */
  id: string;
  accountId: string;
  amountNanos: bigint;
  reset: KeyLimitReset | null;
  /** Percentages; null: the configured default (alerts.thresholds). */
  alertThresholds: readonly number[] | null;
}

/** The largest budget, USD: as a key's limit. */
export const MAX_BUDGET_NANOS = 1_000_000_000n * 1_000_000_000n;

/** [start, end) epoch ms of the window in force at `nowMs`; [-Infinity, +Infinity] without a reset. */
export function budgetWindow(reset: KeyLimitReset | null, nowMs: number): [number, number] {
  if (reset === null) return [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return [periodStart(reset, nowMs), periodEnd(reset, nowMs)];
}

/**
 * A `budget` from an API body: `{amount, reset?, alert_thresholds?}`, or null (clears it).
 * Refusals are 400 `invalid_parameter` naming the field.
 */
export function readBudget(v: unknown): AccountBudget | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw bad('budget', '"budget" must be an object {amount, reset, alert_thresholds} or null.');
  const b = v as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!['amount', 'reset', 'alert_thresholds'].includes(k))
      throw bad(`budget.${k}`, `"budget.${k}" is not a budget field (known: amount, reset, alert_thresholds).`);
  if (typeof b.amount !== 'string' && typeof b.amount !== 'number')
    throw bad('budget.amount', '"budget.amount" is required: USD decimal text.');
  let amountNanos: bigint;
  try {
    amountNanos = usdToNanos(b.amount);
  } catch {
    throw bad('budget.amount', '"budget.amount" must be USD decimal text (at most 9 decimals).');
  }
  if (amountNanos < 0n || amountNanos > MAX_BUDGET_NANOS)
    throw bad('budget.amount', '"budget.amount" must be from 0 to 1,000,000,000 USD.');
  const reset = b.reset ?? null;
  if (reset !== null && !isKeyLimitReset(reset)) throw bad('budget.reset', '"budget.reset" must be "daily", "weekly", "monthly" or null.');
  const thresholds =
    b.alert_thresholds === undefined || b.alert_thresholds === null ? null : readThresholds(b.alert_thresholds, 'budget.alert_thresholds');
  return { amountNanos, reset, alertThresholds: thresholds };
}

/** Alert thresholds: 1 to 10 distinct integer percentages from 1 to 100, sorted. */
export function readThresholds(v: unknown, field: string): number[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 10 || !v.every((t) => Number.isInteger(t) && t >= 1 && t <= 100)) {
    throw bad(field, `"${field}" must be a list of 1 to 10 integer percentages from 1 to 100.`);
  }
  return [...new Set(v as number[])].sort((a, b) => a - b);
}

function bad(param: string, message: string): GatewayError {
  return new GatewayError('invalid_parameter', message, { param });
}
