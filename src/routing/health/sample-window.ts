import type { PercentileStats } from './health-store.ts';

/**
 * The last `capacity` measurements of one figure (latency, throughput) with their times:
 * percentiles are taken over those still inside the window. Bounded memory: under heavy
 * traffic the window holds the most recent samples rather than all of the last 30 minutes.
 */
export class SampleWindow {
  private readonly times: Float64Array;
  private readonly values: Float32Array;
  private next = 0;
  private count = 0;

  constructor(capacity: number) {
    this.times = new Float64Array(capacity);
    this.values = new Float32Array(capacity);
  }

  add(now: number, value: number): void {
    this.times[this.next] = now;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.times.length;
    if (this.count < this.times.length) this.count++;
  }

  /**
   * Nearest-rank percentiles of the samples newer than `now - spanMs`, or null when there
   * are none, counted from the good end: pN is the value at least N % of the samples are as
   * good as (latency at or below it; with `highIsGood`, throughput at or above it). So p99 is
   * toward the bad end, the worst but for the worst 1 %, and the same rule either way.
   */
  percentiles(now: number, spanMs: number, highIsGood: boolean, scratch: Float32Array): PercentileStats | null {
    const since = now - spanMs;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.times[i]! >= since) scratch[n++] = this.values[i]!;
    }
    if (n === 0) return null;
    const sorted = scratch.subarray(0, n).sort();
    const rank = (p: number): number => {
      const k = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
      return round2(sorted[highIsGood ? n - 1 - k : k]!);
    };
    return { p50: rank(50), p75: rank(75), p90: rank(90), p99: rank(99) };
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
