import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attosToNanos, formatAttos, formatNanos, nanosToNumber, priceToAttos, usdToNanos } from './money.ts';

test('USD amounts parse to exact nano-dollars and print back unchanged', () => {
  assert.equal(usdToNanos('12.5'), 12_500_000_000n);
  assert.equal(usdToNanos('0.000000001'), 1n);
  assert.equal(usdToNanos(0.1), 100_000_000n, 'a float literal goes through its shortest decimal text, not binary');
  assert.equal(usdToNanos('-3'), -3_000_000_000n);
  assert.equal(formatNanos(12_500_000_001n), '12.500000001');
  assert.equal(formatNanos(-1n), '-0.000000001');
  assert.throws(() => usdToNanos('0.0000000001'), /decimal places/);
  assert.throws(() => usdToNanos('1e3x'), /not a decimal/);
});

test('prices keep sub-nano precision in atto-dollars', () => {
  assert.equal(priceToAttos('0.000000075'), 75_000_000_000n);
  assert.equal(priceToAttos(2.5e-7), 250_000_000_000n);
  assert.equal(formatAttos(priceToAttos('0.0000000075')), '0.0000000075');
});

test('atto to nano rounds half away from zero, once', () => {
  assert.equal(attosToNanos(1_499_999_999n), 1n);
  assert.equal(attosToNanos(1_500_000_000n), 2n);
  assert.equal(attosToNanos(-1_500_000_000n), -2n);
});

test('amounts become JSON numbers whose text is the exact decimal', () => {
  assert.equal(JSON.stringify(nanosToNumber(18_000n)), '0.000018');
  assert.equal(JSON.stringify(nanosToNumber(123_456_789_012n)), '123.456789012');
  // 0.1 + 0.2 style drift cannot happen: sums are done in bigint before converting.
  assert.equal(nanosToNumber(100_000_000n + 200_000_000n), 0.3);
});
