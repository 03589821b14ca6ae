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
   * are none. `highIsGood` flips the ranks so that p99 is always the worst case (the slowest
   * throughput, like the highest latency).
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
      const q = highIsGood ? 100 - p : p;
      const index = Math.max(0, Math.ceil((q / 100) * n) - 1);
      return round2(sorted[Math.min(index, n - 1)]!);
    };
    return { p50: rank(50), p75: rank(75), p90: rank(90), p99: rank(99) };
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
