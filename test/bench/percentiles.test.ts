// The bench's latency maths (bench/lib/percentiles.ts) on seeded samples: nearest-rank
// percentiles, p99.9 and the maximum, whatever the order the samples came in.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { added, correctedForOmission, percentile, summarize } from '../../bench/lib/percentiles.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';

function shuffled(values: number[], seed: number): number[] {
  const random = seededRandom(seed);
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test('the percentiles of 1..10000 in any order are the nearest-rank samples, p99.9 and max included', () => {
  const s = summarize(
    shuffled(
      Array.from({ length: 10_000 }, (_, i) => i + 1),
      7,
    ),
  );
  assert.deepEqual(
    { p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max, min: s.min, samples: s.samples, mean: s.mean },
    { p50: 5000, p90: 9000, p99: 9900, p999: 9990, max: 10_000, min: 1, samples: 10_000, mean: 5000.5 },
  );
});

test('stalls of one request in a few hundred show in p99.9 and max, not in p99', () => {
  const random = seededRandom(42);
  // 0.8–1.2 ms answers, and 15 stalls of 40 ms: 1 in ~670, more than the 0.1 % p99.9 looks at.
  const samples = Array.from({ length: 10_000 }, () => 0.8 + random() * 0.4);
  for (let k = 0; k < 15; k++) samples[k * 650 + Math.floor(random() * 600)] = 40;
  const s = summarize(samples);
  assert.ok(s.p50 > 0.8 && s.p50 < 1.2, `p50 ${s.p50}`);
  assert.ok(s.p99 < 1.2, `p99 ${s.p99}`);
  assert.equal(s.p999, 40);
  assert.equal(s.max, 40);
});

test('a percentile is always one of the samples (never interpolated), and the edges hold', () => {
  const random = seededRandom(3);
  const samples = Float64Array.from({ length: 1234 }, () => random() * 100).sort();
  for (const q of [0, 0.001, 0.5, 0.9, 0.99, 0.999, 1]) {
    const v = percentile(samples, q);
    assert.ok(samples.includes(v), `q=${q}`);
    // At least q of the samples are at or below it, and fewer than q strictly below.
    const atOrBelow = samples.filter((x) => x <= v).length / samples.length;
    const below = samples.filter((x) => x < v).length / samples.length;
    assert.ok(atOrBelow >= q, `q=${q}: only ${atOrBelow} at or below`);
    assert.ok(q === 0 ? below === 0 : below < q, `q=${q}: ${below} strictly below`);
  }
  assert.equal(percentile(samples, 1), samples[samples.length - 1]);
  assert.ok(Number.isNaN(summarize([]).p50));
  assert.ok(Number.isNaN(summarize([]).max));
});

test('added() is the difference figure by figure', () => {
  const a = summarize([1, 2, 3, 4, 10]);
  const b = summarize([0.5, 1, 1.5, 2, 2.5]);
  assert.deepEqual(added(a, b), { p50: 1.5, p90: 7.5, p99: 7.5, p999: 7.5, max: 7.5 });
});

test('coordinated omission is corrected as wrk corrects it: a stall of L adds L − I, L − 2·I, … while above I', () => {
  assert.deepEqual(correctedForOmission([1, 1, 1, 10], 1), [1, 1, 1, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  assert.deepEqual(correctedForOmission([1, 10], 2), [1, 10, 8, 6, 4]);
  assert.deepEqual(correctedForOmission([1, 3.9], 2), [1, 3.9], 'under twice the interval: no request was held back');
  assert.deepEqual(correctedForOmission([5, 6], 0), [5, 6], 'no interval: nothing to correct');
});

test('at one connection a rare stall moves the corrected p99 and not the per-request one', () => {
  // 10,000 requests of 1 ms, one in 1,000 stalling 35 ms (0.1 %): per request p99 = 1 ms.
  const samples = Array.from({ length: 10_000 }, (_, i) => (i % 1000 === 0 ? 35 : 1));
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  assert.equal(summarize(samples).p99, 1);
  const corrected = correctedForOmission(samples, mean);
  // Each stall stands for ~33 requests held back: 10 stalls add ~330 samples between 1 and 34 ms.
  assert.ok(corrected.length - samples.length > 300 && corrected.length - samples.length < 340, String(corrected.length));
  assert.ok(summarize(corrected).p99 > 20, String(summarize(corrected).p99));
});
