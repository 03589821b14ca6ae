import { BucketCounter, emptyCounts, type OutcomeCounts } from './bucket-counter.ts';
import type { EndpointHealth, HealthOutcome, HealthStore } from './health-store.ts';
import { SampleWindow } from './sample-window.ts';

export interface HealthOptions {
  /** How far back a "recent" outage reaches (ms). */
  outageWindowMs: number;
  /** Failures within the outage window that make an outage significant... */
  outageMinFailures: number;
  /** ...when they are at least this share of the attempts that were not rate-limited. */
  outageFailureRatio: number;
  /** Latency and throughput samples kept per endpoint. */
  samplesPerEndpoint: number;
  /** How long `health()` may serve figures computed earlier (ms), unless new samples came in. */
  summaryMaxAgeMs: number;
  /** The least time between two recomputations while samples keep coming in (ms). */
  summaryMinAgeMs: number;
}

export const DEFAULT_HEALTH_OPTIONS: HealthOptions = {
  outageWindowMs: 30_000,
  outageMinFailures: 3,
  outageFailureRatio: 0.5,
  samplesPerEndpoint: 256,
  summaryMaxAgeMs: 5_000,
  summaryMinAgeMs: 250,
};

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const LATENCY_SPAN = 30 * MINUTE;

/** Everything kept for one endpoint; created on its first sample, so an idle gateway keeps nothing. */
class EndpointRecord {
  readonly seconds = new BucketCounter(SECOND, 60);
  readonly minutes = new BucketCounter(MINUTE, 30);
  readonly hours = new BucketCounter(HOUR, 24);
  readonly latency: SampleWindow;
  readonly throughput: SampleWindow;
  summary: EndpointHealth | null = null;
  summaryAt = 0;
  dirty = true;

  constructor(samples: number) {
    this.latency = new SampleWindow(samples);
    this.throughput = new SampleWindow(samples);
  }
}

const UNKNOWN: EndpointHealth = Object.freeze({
  recentOutage: false,
  uptimeLast5m: null,
  uptimeLast30m: null,
  uptimeLast1d: null,
  latencyLast30m: null,
  throughputLast30m: null,
});

/** Health figures in this process's memory: right for one process, and the default. */
export class InProcessHealthStore implements HealthStore {
  private readonly options: HealthOptions;
  private readonly now: () => number;
  private readonly records = new Map<string, EndpointRecord>();
  private readonly counts: OutcomeCounts = emptyCounts();
  private readonly scratch: Float32Array;

  constructor(opts: Partial<HealthOptions> & { now?: () => number } = {}) {
    this.options = { ...DEFAULT_HEALTH_OPTIONS, ...opts };
    this.now = opts.now ?? Date.now;
    this.scratch = new Float32Array(this.options.samplesPerEndpoint);
  }

  record(endpointId: string, outcome: HealthOutcome, latencyMs: number, tokensPerSecond: number): void {
    let rec = this.records.get(endpointId);
    if (rec === undefined) {
      rec = new EndpointRecord(this.options.samplesPerEndpoint);
      this.records.set(endpointId, rec);
    }
    const now = this.now();
    rec.seconds.add(now, outcome);
    rec.minutes.add(now, outcome);
    rec.hours.add(now, outcome);
    if (latencyMs >= 0) rec.latency.add(now, latencyMs);
    if (tokensPerSecond >= 0) rec.throughput.add(now, tokensPerSecond);
    rec.dirty = true;
  }

  hasRecentOutage(endpointId: string): boolean {
    const rec = this.records.get(endpointId);
    return rec !== undefined && this.outage(rec, this.now());
  }

  health(endpointId: string): EndpointHealth {
    const rec = this.records.get(endpointId);
    if (rec === undefined) return UNKNOWN;
    const now = this.now();
    const age = now - rec.summaryAt;
    const stale = rec.summary === null || age >= this.options.summaryMaxAgeMs || (rec.dirty && age >= this.options.summaryMinAgeMs);
    if (stale) {
      rec.summary = this.summarize(rec, now);
      rec.summaryAt = now;
      rec.dirty = false;
    }
    return rec.summary!;
  }

  private outage(rec: EndpointRecord, now: number): boolean {
    const c = rec.seconds.sum(now, this.options.outageWindowMs, this.counts);
    if (c.failure < this.options.outageMinFailures) return false;
    return c.failure >= this.options.outageFailureRatio * (c.failure + c.success);
  }

  private summarize(rec: EndpointRecord, now: number): EndpointHealth {
    return {
      recentOutage: this.outage(rec, now),
      uptimeLast5m: uptime(rec.minutes.sum(now, 5 * MINUTE, this.counts)),
      uptimeLast30m: uptime(rec.minutes.sum(now, 30 * MINUTE, this.counts)),
      uptimeLast1d: uptime(rec.hours.sum(now, 24 * HOUR, this.counts)),
      latencyLast30m: rec.latency.percentiles(now, LATENCY_SPAN, false, this.scratch),
      throughputLast30m: rec.throughput.percentiles(now, LATENCY_SPAN, true, this.scratch),
    };
  }
}

function uptime(c: OutcomeCounts): number | null {
  const total = c.success + c.failure;
  if (total === 0) return null;
  return Math.round((c.success / total) * 10_000) / 100;
}
