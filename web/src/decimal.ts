// Exact money arithmetic on the API's decimal text (9 decimals at most: nano-USD), as bigint.

/** "12.5" → 12_500_000_000n; "-0.000000001" → -1n. */
export function nanosOf(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', frac = ''] = (negative ? text.slice(1) : text).split('.');
  const n = BigInt(whole || '0') * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9) || '0');
  return negative ? -n : n;
}

/** 12_500_000_000n → "12.500000000". */
export function decimalOf(nanos: bigint): string {
  const negative = nanos < 0n;
  const abs = negative ? -nanos : nanos;
  return `${negative ? '-' : ''}${abs / 1_000_000_000n}.${(abs % 1_000_000_000n).toString().padStart(9, '0')}`;
}
