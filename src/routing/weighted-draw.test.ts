import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../canonical/seeded-random.test-util.ts';
import { drawWeighted } from './weighted-draw.ts';

const id = (w: number): number => w;

describe('drawWeighted', () => {
  it('draws in proportion to the weights (chi-square test on 20,000 seeded draws)', () => {
    const weights = [1, 1 / 4, 1 / 16];
    const random = seededRandom(42);
    const n = 20_000;
    const counts = [0, 0, 0];
    for (let i = 0; i < n; i++) counts[drawWeighted(weights, 3, id, random)]!++;
    const total = weights.reduce((a, b) => a + b, 0);
    let chi2 = 0;
    for (let i = 0; i < 3; i++) {
      const expected = (n * weights[i]!) / total;
      chi2 += (counts[i]! - expected) ** 2 / expected;
    }
    // 2 degrees of freedom: 13.8 is the 0.1% critical value.
    assert.ok(chi2 < 13.8, `chi² = ${chi2.toFixed(2)} for ${counts.join('/')}`);
  });

  it('only looks at the first `count` items', () => {
    for (let i = 0; i < 100; i++) assert.ok(drawWeighted([1, 1, 1000], 2, id, seededRandom(i)) < 2);
  });

  it('infinite weights (free endpoints) take every draw, shared equally', () => {
    const random = seededRandom(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) counts[drawWeighted([5, Infinity, 1, Infinity], 4, id, random)]!++;
    assert.equal(counts[0], 0);
    assert.equal(counts[2], 0);
    assert.ok(Math.abs(counts[1]! - 2_000) < 200, counts.join('/'));
  });

  it('the edges of the random range stay in bounds', () => {
    assert.equal(
      drawWeighted([1, 2, 3], 3, id, () => 0),
      0,
    );
    assert.equal(
      drawWeighted([1, 2, 3], 3, id, () => 0.9999999999),
      2,
    );
    assert.equal(
      drawWeighted([0, 0], 2, id, () => 0.9999999999),
      1,
    );
  });
});
