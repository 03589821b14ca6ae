// A made-up but complete bench run for the tests of the bench's tables: seeded latencies,
// round CPU figures whose ratios are easy to check (switchyard at 80 % of the proxy's
// throughput, Portkey at 20 %), and Portkey failing every streamed request.

import { correctedForOmission, summarize } from '../../bench/lib/percentiles.ts';
import type { BenchResults, Measured, TargetResults } from '../../bench/lib/results.ts';
import type { ThroughputStats } from '../../bench/lib/throughput.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';

export const ok = <T>(value: T): Measured<T> => ({ ok: true, value });

/** 10,000 seeded latencies around `p50Ms`, with a tail of `tailMs` on one in `every` of them (every 50: 2 %, so p99 is the tail). */
export function latencySamples(seed: number, p50Ms: number, tailMs: number, every = 50): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: 10_000 }, (_, i) => (i % every === 0 ? tailMs : p50Ms * (0.95 + random() * 0.1)));
}

function latencies(seed: number, p50Ms: number, tailMs: number) {
  return summarize(latencySamples(seed, p50Ms, tailMs));
}

/** One connection's figures from samples: per request, and corrected for coordinated omission with their mean as the interval. */
export function oneConnectionStats(samples: number[], serverCpuUs: number) {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { latency: summarize(samples), corrected: summarize(correctedForOmission(samples, mean)), errors: 0, serverCpuUs };
}

function saturation(seed: number, cpuUs: number, rps: number): ThroughputStats {
  return {
    rps,
    rpsMedian: rps,
    rpsMin: rps,
    cpuUsPerResponse: cpuUs,
    cpuUsPerResponseMean: cpuUs,
    oneCoreCapacity: 1e6 / cpuUs,
    serverCpu: 1,
    upstreamCpu: 0.3,
    loadCpu: 0.5,
    latency: latencies(seed, 64_000 / rps / 1000, 20),
    failures: 0,
    completed: rps * 12,
    slices: [],
    threadUs: { 'event loop': cpuUs * 0.7, 'worker threads': cpuUs * 0.2, 'V8 (GC, compiler)': cpuUs * 0.1 },
  };
}

function target(
  seed: number,
  o: { p50: number; tail: number; cpuUs: number; rps: number; idle: number; after: number; streamed?: Measured<ThroughputStats> },
): TargetResults {
  const one = ok(oneConnectionStats(latencySamples(seed, o.p50, o.tail), o.cpuUs * 2));
  return {
    idleRssMb: o.idle,
    afterLoadRssMb: o.after,
    idleAfterLoadRssMb: o.after,
    oneConnection: { nonStreamed: one, streamed: one },
    saturation: {
      nonStreamed: ok(saturation(seed, o.cpuUs, o.rps)),
      streamed: o.streamed ?? ok(saturation(seed + 1, o.cpuUs * 1.2, o.rps / 1.2)),
    },
    loopDelay: {
      oneConnection: ok({ maxMs: 12.5, p99Ms: 10.2, meanMs: 10.1, count: 100, resolutionMs: 10 }),
      saturation: ok({ maxMs: 31, p99Ms: 15, meanMs: 10.5, count: 100, resolutionMs: 10 }),
    },
  };
}

export function results(): BenchResults {
  return {
    machine: {
      cpus: 2,
      cpuModel: 'test',
      memoryGb: 1,
      node: 'v24',
      pinned: { load: 0, upstream: 0, server: 1 },
      date: '2026-11-24',
      git: 'abc',
      loadAverageAtStart: [0, 0, 0],
      loadAverage: [0, 0, 0],
    },
    options: { quick: false, samples: 10_000, rounds: 4, connections: 64, sliceSeconds: 3, throughputRounds: 4 },
    targets: {
      direct: target(1, { p50: 0.1, tail: 0.5, cpuUs: 15, rps: 30_000, idle: 50, after: 60 }),
      'bare proxy': target(2, { p50: 0.3, tail: 1.5, cpuUs: 50, rps: 19_000, idle: 88, after: 200 }),
      Portkey: target(3, {
        p50: 1.5,
        tail: 30,
        cpuUs: 250,
        rps: 4_000,
        idle: 117,
        after: 330,
        streamed: { ok: false, reason: 'Portkey answered a streamed request with 500: {"status":"failure"}' },
      }),
      // 80 % of the proxy's throughput (met), +0.35 ms at p50 (missed), p99 0.3 ms over the proxy's, p99.9 1.8 ms (met).
      switchyard: target(4, { p50: 0.45, tail: 1.8, cpuUs: 62.5, rps: 15_000, idle: 70, after: 160 }),
    },
    idleLoopDelay: {
      oneConnection: ok({ maxMs: 11, p99Ms: 10.1, meanMs: 10, count: 100, resolutionMs: 10 }),
      saturation: ok({ maxMs: 29.5, p99Ms: 10.1, meanMs: 10, count: 100, resolutionMs: 10 }),
    },
    telemetry: { inProcessUs: { metrics: 2, log: 4.5, both: 6.25 }, endToEnd: ok({ onUs: 62.5, offUs: 55 }) },
    workers: { runs: [], skipped: 'not asked' },
    openStreams: {},
    chunks: {},
  };
}
