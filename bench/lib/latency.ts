// Latency at one connection: sequential requests on one keep-alive connection, each timed
// with hrtime from sending to the last byte of the answer (for a stream, until its end).
// The targets take turns in rounds of equal sample counts, so that a slow spell of the
// machine falls on all of them alike; the sum per target is what the caller asks for
// (at least 10,000 in a full run: enough for p99.9 and to catch stalls that come every
// few seconds). The serving process's CPU over its own slices gives CPU per request.

import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { correctedForOmission, summarize, type LatencySummary } from './percentiles.ts';
import { cpuSeconds } from './processes.ts';
import { chatBody } from './scenarios.ts';
import type { Target } from './targets.ts';
import { PATH } from './throughput.ts';

export interface OneConnectionStats {
  /** Per request, as timed. */
  latency: LatencySummary;
  /**
   * Corrected for coordinated omission as wrk corrects it (percentiles.ts), with the
   * target's own time per request as the interval: what a client sending at a steady rate
   * would have felt. Absent in results written before it existed.
   */
  corrected?: LatencySummary;
  errors: number;
  /** CPU of the serving process per request, µs (for direct: the upstream's own). */
  serverCpuUs: number;
}

export interface OneConnectionOptions {
  stream: boolean;
  samplesPerTarget: number;
  rounds: number;
  warmup: number;
}

/** A target whose first `FAIL_FAST` answers all fail is dropped from the phase (and reported as failing). */
const FAIL_FAST = 50;

export async function latencyAtOneConnection(
  targets: readonly Target[],
  o: OneConnectionOptions,
): Promise<Map<string, OneConnectionStats>> {
  const clients = targets.map((t) => new Client(t.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const samples = targets.map(() => [] as number[]);
  const errors = targets.map(() => 0);
  const cpu = targets.map(() => 0);
  /** Wall time of each target's slices, ms: the run's time per request is the correction's interval. */
  const wall = targets.map(() => 0);
  const bodies = targets.map((t) => chatBody(t.model, o.stream));
  const once = async (i: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    try {
      const res = await clients[i]!.request({ path: PATH, method: 'POST', headers: targets[i]!.headers, body: bodies[i]! });
      const text = await res.body.text();
      const dt = Number(process.hrtime.bigint() - t0) / 1e6;
      const complete = o.stream ? text.includes('[DONE]') : text.includes('"choices"');
      return res.statusCode === 200 && complete ? dt : -1;
    } catch {
      return -1;
    }
  };
  const failing = (i: number): boolean => errors[i]! >= FAIL_FAST && samples[i]!.length === 0;
  try {
    for (let i = 0; i < targets.length; i++) {
      for (let k = 0; k < o.warmup && !failing(i); k++) if ((await once(i)) < 0) errors[i]!++;
      if (!failing(i)) errors[i] = 0;
    }
    const perSlice = Math.ceil(o.samplesPerTarget / o.rounds);
    for (let r = 0; r < o.rounds; r++) {
      for (let i = 0; i < targets.length; i++) {
        if (failing(i)) continue;
        const c0 = cpuSeconds(targets[i]!.pid);
        const w0 = performance.now();
        for (let k = 0; k < perSlice && !failing(i); k++) {
          const ms = await once(i);
          if (ms >= 0) samples[i]!.push(ms);
          else errors[i]!++;
        }
        wall[i]! += performance.now() - w0;
        cpu[i]! += cpuSeconds(targets[i]!.pid) - c0;
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return new Map(
    targets.map((t, i) => [
      t.name,
      {
        latency: summarize(samples[i]!),
        corrected: summarize(correctedForOmission(samples[i]!, wall[i]! / Math.max(1, samples[i]!.length + errors[i]!))),
        errors: errors[i]!,
        serverCpuUs: (cpu[i]! / Math.max(1, samples[i]!.length + errors[i]!)) * 1e6,
      },
    ]),
  );
}
