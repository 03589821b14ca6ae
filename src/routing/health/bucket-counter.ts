import { assertNever } from '../../canonical/assert-never.ts';
import type { HealthOutcome } from './health-store.ts';

/** Counts of outcomes over a span of time. */
export interface OutcomeCounts {
  success: number;
  failure: number;
  rateLimited: number;
}

/**
 * Outcome counts in a ring of fixed-width time buckets: adding is O(1), summing a span is
 * one pass over its buckets, and memory does not grow with traffic. A bucket left over from
 * an earlier lap of the ring is recognised by its stamp and counted as empty.
 */
export class BucketCounter {
  private readonly widthMs: number;
  private readonly size: number;
  /** The absolute bucket number each slot currently holds (-1: never used). */
  private readonly stamps: Float64Array;
  private readonly success: Uint32Array;
  private readonly failure: Uint32Array;
  private readonly rateLimited: Uint32Array;

  constructor(widthMs: number, size: number) {
    this.widthMs = widthMs;
    this.size = size;
    this.stamps = new Float64Array(size).fill(-1);
    this.success = new Uint32Array(size);
    this.failure = new Uint32Array(size);
    this.rateLimited = new Uint32Array(size);
  }

  add(now: number, outcome: HealthOutcome): void {
    const bucket = Math.floor(now / this.widthMs);
    const slot = bucket % this.size;
    if (this.stamps[slot] !== bucket) {
      this.stamps[slot] = bucket;
      this.success[slot] = 0;
      this.failure[slot] = 0;
      this.rateLimited[slot] = 0;
    }
    switch (outcome) {
      case 'success':
        this.success[slot]!++;
        break;
      case 'failure':
        this.failure[slot]!++;
        break;
      case 'rate-limited':
        this.rateLimited[slot]!++;
        break;
      default:
        assertNever(outcome);
    }
  }

  /** Sums the buckets that overlap the last `spanMs` (the current, partial one included) into `out`. */
  sum(now: number, spanMs: number, out: OutcomeCounts): OutcomeCounts {
    out.success = 0;
    out.failure = 0;
    out.rateLimited = 0;
    const current = Math.floor(now / this.widthMs);
    const buckets = Math.min(this.size, Math.ceil(spanMs / this.widthMs));
    for (let k = 0; k < buckets; k++) {
      const bucket = current - k;
      if (bucket < 0) break;
      const slot = bucket % this.size;
      if (this.stamps[slot] !== bucket) continue;
      out.success += this.success[slot]!;
      out.failure += this.failure[slot]!;
      out.rateLimited += this.rateLimited[slot]!;
    }
    return out;
  }
}

export function emptyCounts(): OutcomeCounts {
  return { success: 0, failure: 0, rateLimited: 0 };
}
