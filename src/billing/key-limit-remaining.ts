import type { KeyLimitReset, KeyRecord } from '../store/account-records.ts';
import { nanosToNumber } from '../money/money.ts';

// A key's credit limit and its optional reset period (OpenRouter's `limit_reset`): the one
// place that knows when a period starts. Periods are UTC: a day starts at 00:00, a week on
// Monday 00:00, a month on the 1st 00:00. With a reset, the limit caps the usage since the
// period began; without, the key's whole usage. Used by the key APIs, the credit holds and
// the dashboard (through the APIs).

export type { KeyLimitReset };

const DAY_MS = 86_400_000;

/** Epoch ms of the start of the period that contains `nowMs`. */
export function periodStart(reset: KeyLimitReset, nowMs: number): number {
  const d = new Date(nowMs);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (reset === 'daily') return midnight;
  if (reset === 'weekly') return midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS; // Sunday is 0: Monday starts the week
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Epoch ms of the start of the next period: when the limit is whole again. */
export function periodEnd(reset: KeyLimitReset, nowMs: number): number {
  const start = periodStart(reset, nowMs);
  if (reset === 'daily') return start + DAY_MS;
  if (reset === 'weekly') return start + 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The UTC days (YYYY-MM-DD) from the period's start to the day of `nowMs`, inclusive. */
export function periodDays(reset: KeyLimitReset, nowMs: number): string[] {
  const days: string[] = [];
  for (let t = periodStart(reset, nowMs); t <= nowMs; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Reads what a key spent on given UTC days (the store contract's KeyUsageRepository). */
export type CostOnDays = (accountId: string, keyHash: string, days: readonly string[]) => Promise<bigint>;

/** The usage the key's limit caps at `nowMs`: since the period began with a reset, else all of it. */
export async function limitUsageNanos(key: KeyRecord, nowMs: number, costOnDays: CostOnDays): Promise<bigint> {
  if (key.limitReset === null) return key.usageNanos;
  return await costOnDays(key.accountId, key.hash, periodDays(key.limitReset, nowMs));
}

/**
 * What a key may still spend under its own limit, in USD, as GET /v1/key and the
 * key-management API report it; null without a limit. Never below 0: a limit lowered
 * below what the key has used leaves nothing, not a debt.
 */
export async function limitRemaining(key: KeyRecord, nowMs: number, costOnDays: CostOnDays): Promise<number | null> {
  if (key.limitNanos === null) return null;
  const left = key.limitNanos - (await limitUsageNanos(key, nowMs, costOnDays));
  return nanosToNumber(left < 0n ? 0n : left);
}

/** A `limit_reset` value from an API body or the CLI: one of the periods, or null (absent: undefined). */
export function isKeyLimitReset(v: unknown): v is KeyLimitReset {
  return v === 'daily' || v === 'weekly' || v === 'monthly';
}
