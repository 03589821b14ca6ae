import { InvalidArgumentError } from 'commander';
import { formatNanos, usdToNanos } from '../money/money.ts';
import { UsageError } from './output.ts';

// Option-value parsers: each refuses a wrong value with a message that says what is expected
// (commander prints it as `error: option '--x <v>' argument 'y' is invalid. <message>`, exit 1).

function nanos(value: string): bigint {
  try {
    return usdToNanos(value);
  } catch {
    throw new InvalidArgumentError(`"${value}" is not a USD amount (digits, with a "." for decimals and at most 9 of them: e.g. 12.50).`);
  }
}

/** A USD amount of either sign (an adjustment), canonical decimal text; never zero. */
export function signedUsd(value: string): string {
  const n = nanos(value);
  if (n === 0n) throw new InvalidArgumentError('an adjustment needs a non-zero amount.');
  return formatNanos(n);
}

/** A USD amount above zero. */
export function positiveUsd(value: string): string {
  const n = nanos(value);
  if (n <= 0n) {
    throw new InvalidArgumentError(
      `must be positive (got ${value}); to take credits away: switchyard credits adjust --account ID --amount -USD --reason TEXT`,
    );
  }
  return formatNanos(n);
}

/** A USD amount of zero or more. */
export function nonNegativeUsd(value: string): string {
  const n = nanos(value);
  if (n < 0n) throw new InvalidArgumentError(`must not be negative (got ${value}).`);
  return formatNanos(n);
}

/** A key limit's reset period, or `none` (no reset: commander turns a parser's null into "", so "none" stays text). */
export function limitReset(value: string): 'daily' | 'weekly' | 'monthly' | 'none' {
  if (value === 'daily' || value === 'weekly' || value === 'monthly' || value === 'none') return value;
  throw new InvalidArgumentError('expected daily, weekly, monthly or none.');
}

/** A USD amount of zero or more as canonical text, or `none` (no limit). */
export function usdOrNone(value: string): string {
  return value === 'none' ? 'none' : nonNegativeUsd(value);
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number.');
  return n;
}

export function bool(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('expected true or false.');
}

/** An ISO 8601 date or date-time (`2026-12-31`, `2026-12-31T18:00:00Z`), as ISO text in UTC. */
export function isoDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    throw new InvalidArgumentError('expected an ISO 8601 date such as 2026-12-31 or 2026-12-31T18:00:00Z.');
  }
  const ms = Date.parse(value);
  // Date.parse rolls 2026-02-30 over to March: a day that does not exist is refused instead.
  const [y, m, d] = value.trim().slice(0, 10).split('-').map(Number) as [number, number, number];
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (Number.isNaN(ms) || m < 1 || m > 12 || d < 1 || d > daysInMonth) throw new InvalidArgumentError('not a valid date.');
  return new Date(ms).toISOString();
}

/** A date in the future (a key's expiry): the API refuses past dates, and so does the CLI. */
export function futureDate(value: string): string {
  const iso = isoDate(value);
  if (Date.parse(iso) <= Date.now()) throw new InvalidArgumentError(`${iso} is in the past; an expiry must be a future date.`);
  return iso;
}

/** --since before --until, when both are given. */
export function checkRange(since: string | undefined, until: string | undefined): void {
  if (since !== undefined && until !== undefined && since >= until) {
    throw new UsageError(`--since (${since}) must be before --until (${until})`);
  }
}
