// Money is never a binary float. Amounts are bigints:
//  - ledger amounts (balances, charges, limits) in nano-USD (1e-9 USD);
//  - prices in atto-USD per unit (1e-18 USD), so that per-token prices far below a
//    nano-dollar and the cache multipliers (1.25x, 0.5x, 0.1x) stay exact.
// A request's cost is summed exactly in atto-USD and rounded once, half up, to nano-USD.

export type Nanos = bigint;
export type Attos = bigint;

export const ATTOS_PER_NANO = 1_000_000_000n;
const ATTO_DIGITS = 18;
const NANO_DIGITS = 9;

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function parseScaled(value: string | number, digits: number, what: string): bigint {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`${what}: "${text}" is not a decimal number`);
  const [, sign, whole, frac = ''] = m;
  if (frac.length > digits && /[1-9]/.test(frac.slice(digits))) {
    throw new Error(`${what}: "${text}" has more than ${digits} decimal places`);
  }
  const scaled = BigInt(whole! + frac.slice(0, digits).padEnd(digits, '0'));
  return sign ? -scaled : scaled;
}

/** A number from JSON or YAML into its shortest decimal text, without exponent. */
function numberToPlainString(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent form: rebuild digits exactly from the shortest representation.
  const [mant, expText] = s.toLowerCase().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const pointAt = (mant.replace('-', '').indexOf('.') === -1 ? mant.replace('-', '').length : mant.replace('-', '').indexOf('.')) + exp;
  let out: string;
  if (pointAt <= 0) out = '0.' + '0'.repeat(-pointAt) + digits;
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length);
  else out = digits.slice(0, pointAt) + '.' + digits.slice(pointAt);
  return (neg ? '-' : '') + out;
}

/** USD decimal text ("12.5", "0.000001") → nano-USD. Rejects sub-nano precision. */
export function usdToNanos(value: string | number): Nanos {
  return parseScaled(value, NANO_DIGITS, 'USD amount');
}

/** USD-per-unit price text → atto-USD per unit. Rejects sub-atto precision. */
export function priceToAttos(value: string | number): Attos {
  return parseScaled(value, ATTO_DIGITS, 'price');
}

/** Rounds atto-USD to nano-USD, half away from zero. */
export function attosToNanos(attos: Attos): Nanos {
  const half = ATTOS_PER_NANO / 2n;
  return attos >= 0n ? (attos + half) / ATTOS_PER_NANO : -((-attos + half) / ATTOS_PER_NANO);
}

function formatScaled(value: bigint, digits: number): string {
  // Most figures of a cost breakdown are zero (no cache, no per-request fee): no padding.
  if (value === 0n) return '0';
  const neg = value < 0n;
  const abs = (neg ? -value : value).toString().padStart(digits + 1, '0');
  const whole = abs.slice(0, abs.length - digits);
  // Trailing zeros trimmed by a scan: a /0+$/ regex retries from every zero of a run
  // (quadratic), and this runs for every amount the ledger writes.
  let end = abs.length;
  while (end > abs.length - digits && abs.charCodeAt(end - 1) === 48 /* 0 */) end--;
  const frac = abs.slice(abs.length - digits, end);
  return (neg ? '-' : '') + whole + (frac ? '.' + frac : '');
}

/** nano-USD → exact decimal text ("0.000123"). */
export function formatNanos(n: Nanos): string {
  return formatScaled(n, NANO_DIGITS);
}

/** atto-USD → exact decimal text, for prices. */
export function formatAttos(a: Attos): string {
  return formatScaled(a, ATTO_DIGITS);
}

/**
 * nano-USD as a JSON number, for fields the spec types as numbers (`usage`, `balance`,
 * `usage.cost`). The decimal text has at most 9 places, so the shortest double that
 * prints as it is exactly that text: what the client reads is the exact amount.
 */
export function nanosToNumber(n: Nanos): number {
  return Number(formatNanos(n));
}
