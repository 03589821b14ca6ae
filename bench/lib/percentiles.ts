// Latency statistics over raw samples: nearest-rank percentiles (the value below which at
// least q of the samples fall, always a measured sample, never interpolated), the mean
// and the maximum. p99.9 needs at least 1,000 samples to mean anything, and the bench
// takes at least 10,000 per target and phase (docs/benchmarks.md).

export interface LatencySummary {
  /** Milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
  min: number;
  samples: number;
}

/** Nearest rank: the ⌈q·n⌉-th smallest sample (1-based). NaN without samples. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (q <= 0) return sorted[0]!;
  const rank = Math.ceil(q * n);
  return sorted[Math.min(n, rank) - 1]!;
}

/** Summarizes samples given in milliseconds. */
export function summarize(samplesMs: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    max: n === 0 ? NaN : sorted[n - 1]!,
    mean: n === 0 ? NaN : sum / n,
    min: n === 0 ? NaN : sorted[0]!,
    samples: n,
  };
}

/**
 * The samples with the ones a client sending at a steady rate would also have seen, the way
 * wrk corrects for coordinated omission (its `stats_correct`): a request that took L ≥ 2·I,
 * where I is the expected interval between one connection's requests (the run's time over
 * its requests), held back the requests due meanwhile, so L − I, L − 2·I, … (while above I)
 * are added as samples. At one connection a 35 ms stall with I ≈ 1.2 ms adds ~28 of them.
 */
export function correctedForOmission(samplesMs: ArrayLike<number>, intervalMs: number): number[] {
  const out = Array.from(samplesMs);
  if (!(intervalMs > 0)) return out;
  const n = out.length;
  for (let i = 0; i < n; i++) {
    const l = out[i]!;
    if (l < 2 * intervalMs) continue;
    for (let m = l - intervalMs; m > intervalMs; m -= intervalMs) out.push(m);
  }
  return out;
}

/** The figures of `a` minus those of `b` (what a target adds over direct, or over the bare proxy). */
export function added(a: LatencySummary, b: LatencySummary): Pick<LatencySummary, 'p50' | 'p90' | 'p99' | 'p999' | 'max'> {
  return { p50: a.p50 - b.p50, p90: a.p90 - b.p90, p99: a.p99 - b.p99, p999: a.p999 - b.p999, max: a.max - b.max };
}
