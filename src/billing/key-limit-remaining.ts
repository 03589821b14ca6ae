import type { KeyRecord } from '../store/account-store.ts';
import { nanosToNumber } from '../money/money.ts';

/**
 * What a key may still spend under its own limit, in USD, as GET /v1/key and the
 * key-management API report it; null without a limit. Never below 0: a limit lowered
 * below what the key has used leaves nothing, not a debt.
 */
export function limitRemaining(key: KeyRecord): number | null {
  if (key.limitNanos === null) return null;
  const left = key.limitNanos - key.usageNanos;
  return nanosToNumber(left < 0n ? 0n : left);
}
