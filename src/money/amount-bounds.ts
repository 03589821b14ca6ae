import { formatNanos, type Nanos } from './money.ts';

// The bounds of the amounts an operator sets, chosen so that no sequence of allowed
// operations can overflow the ledger's 64-bit integers (2^63 nano-USD ≈ $9.2e9): a balance
// stays within ±MAX_BALANCE ($2e9) — the store refuses, in the statement that moves it, an
// entry that would take it past — and one entry moves it at most MAX_AMOUNT ($1e9), so the
// sum the database computes before refusing is at most $3e9 (3e18 nano-USD) either way,
// with room for charges. A key's limit is at most MAX_AMOUNT too (its usage grows only by
// the charges the balance pays). docs/billing.md lists them.

const NANOS_PER_USD = 1_000_000_000n;

/** The most one credit grant, adjustment (either way), initial credits or key limit may be. */
export const MAX_AMOUNT_USD = 1_000_000_000;
export const MAX_AMOUNT_NANOS: Nanos = BigInt(MAX_AMOUNT_USD) * NANOS_PER_USD;
/** The most an account's balance may hold, and the most it may owe through adjustments. */
export const MAX_BALANCE_USD = 2_000_000_000;
export const MAX_BALANCE_NANOS: Nanos = BigInt(MAX_BALANCE_USD) * NANOS_PER_USD;

/** An operator's entry that would take a balance past ±MAX_BALANCE: refused by the store, nothing written. */
export class BalanceOutOfBounds extends Error {
  readonly balanceNanos: Nanos;
  readonly amountNanos: Nanos;

  constructor(balanceNanos: Nanos, amountNanos: Nanos) {
    super(
      `the balance would be $${formatNanos(balanceNanos + amountNanos)} ($${formatNanos(balanceNanos)} ${amountNanos < 0n ? '-' : '+'} $${formatNanos(amountNanos < 0n ? -amountNanos : amountNanos)}): ` +
        `a balance stays within ±$${MAX_BALANCE_USD.toLocaleString('en-US')}`,
    );
    this.balanceNanos = balanceNanos;
    this.amountNanos = amountNanos;
  }
}

/** Whether an amount is within ±MAX_AMOUNT. */
export function withinMaxAmount(nanos: Nanos): boolean {
  return nanos <= MAX_AMOUNT_NANOS && nanos >= -MAX_AMOUNT_NANOS;
}
