// Saturation: autocannon with N connections against one target, for a slice of seconds.
// A slice yields the rate of completed 2xx responses (whole streams when streamed), the
// server's CPU per response (from /proc), and every response's latency (autocannon's own
// hrtime per request, in ms with sub-µs precision; its built-in histogram rounds to 1 ms),
// so the latency at N connections has raw samples like the one at 1 connection.

import autocannon from 'autocannon';
import { summarize, type LatencySummary } from './percentiles.ts';
import { cpuSeconds, cpuSecondsOf } from './processes.ts';
import { perResponseUs, threadCpuSeconds, type ThreadKind } from './thread-cpu.ts';
import { chatBody } from './scenarios.ts';
import type { Target } from './targets.ts';

export const PATH = '/v1/chat/completions';

/** One autocannon run against one target. */
export interface ThroughputSlice {
  /** Completed 2xx responses (whole streams, when streamed) per second. */
  rps: number;
  completed: number;
  seconds: number;
  /** Errors, non-2xx answers and timeouts. */
  failures: number;
  /** CPU of the server under test over the slice, in cores (1 = one core busy). */
  serverCpu: number;
  /** CPU of the upstream (0 when it is the server under test) and of this load generator. */
  upstreamCpu: number;
  loadCpu: number;
  /** Server CPU seconds per completed response, in µs: its cost, whatever the machine's noise. */
  cpuUsPerResponse: number;
  /** The server's CPU per response by kind of thread (µs), when the server is one process (thread-cpu.ts). */
  threadUs: Partial<Record<ThreadKind, number>> | null;
  /** Each 2xx response's latency, ms. */
  latencyMs: number[];
}

export interface ThroughputStats {
  /** The best slice's rate: capacity, since noise only ever slows a run down. */
  rps: number;
  rpsMedian: number;
  rpsMin: number;
  /**
   * Server CPU per response (µs) in the cheapest slice — a slow spell of the machine
   * raises it too (less batching, cold caches) — and what one busy core would serve at
   * that cost. The mean over all slices is beside it.
   */
  cpuUsPerResponse: number;
  cpuUsPerResponseMean: number;
  oneCoreCapacity: number;
  /** Mean over slices. */
  serverCpu: number;
  upstreamCpu: number;
  loadCpu: number;
  /** Latency under this load, over every slice's responses. */
  latency: LatencySummary;
  /** CPU per response by kind of thread (µs) over every slice; null when not measured. */
  threadUs: Partial<Record<ThreadKind, number>> | null;
  failures: number;
  completed: number;
  slices: Omit<ThroughputSlice, 'latencyMs'>[];
}

export interface SliceOptions {
  stream: boolean;
  connections: number;
  seconds: number;
  /** Pids whose CPU counts as the server's (default: the target's own). */
  serverPids?: readonly number[];
  /** The upstream's pid, for its CPU figure. */
  upstreamPid: number;
  /** The request body (default: the small chat request of scenarios.ts). */
  body?: string;
}

function autocannonOptions(target: Target, stream: boolean, connections: number, seconds: number, body?: string) {
  return {
    url: target.origin + PATH,
    method: 'POST',
    headers: target.headers,
    body: body ?? chatBody(target.model, stream),
    connections,
    pipelining: 1,
    timeout: 10,
    duration: seconds,
  };
}

/** Saturation traffic that is not measured: opens the connections and warms the code. */
export async function saturate(target: Target, stream: boolean, connections: number, seconds: number, body?: string): Promise<void> {
  await autocannon(autocannonOptions(target, stream, connections, seconds, body));
}

export async function throughputSlice(target: Target, o: SliceOptions): Promise<ThroughputSlice> {
  const serverPids = o.serverPids ?? [target.pid];
  const upstreamIsServer = serverPids.includes(o.upstreamPid);
  const threads0 = serverPids.length === 1 ? threadCpuSeconds(serverPids[0]!) : null;
  const s0 = cpuSecondsOf(serverPids);
  const u0 = upstreamIsServer ? 0 : cpuSeconds(o.upstreamPid);
  const l0 = process.cpuUsage();
  const t0 = performance.now();
  const latencyMs: number[] = [];
  const run = autocannon(autocannonOptions(target, o.stream, o.connections, o.seconds, o.body));
  run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencyMs.push(ms);
  });
  const r = await run;
  const wall = (performance.now() - t0) / 1000;
  const l1 = process.cpuUsage(l0);
  const serverSeconds = cpuSecondsOf(serverPids) - s0;
  const threadUs = threads0 === null ? null : Object.fromEntries(perResponseUs(threads0, threadCpuSeconds(serverPids[0]!), r['2xx']));
  return {
    rps: r['2xx'] / r.duration,
    completed: r['2xx'],
    seconds: r.duration,
    failures: r.errors + r.non2xx + r.timeouts,
    serverCpu: serverSeconds / wall,
    upstreamCpu: upstreamIsServer ? 0 : (cpuSeconds(o.upstreamPid) - u0) / wall,
    loadCpu: (l1.user + l1.system) / 1e6 / wall,
    cpuUsPerResponse: (serverSeconds / Math.max(1, r['2xx'])) * 1e6,
    threadUs,
    latencyMs,
  };
}

export function throughputStats(slices: ThroughputSlice[]): ThroughputStats {
  const byRate = [...slices].sort((a, b) => a.rps - b.rps);
  const median = byRate[Math.floor(byRate.length / 2)]!;
  const mean = (f: (s: ThroughputSlice) => number): number => slices.reduce((sum, s) => sum + f(s), 0) / slices.length;
  const completed = slices.reduce((sum, s) => sum + s.completed, 0);
  const cpuSecondsTotal = slices.reduce((sum, s) => sum + (s.cpuUsPerResponse * s.completed) / 1e6, 0);
  const cpuUsPerResponse = Math.min(...slices.map((s) => s.cpuUsPerResponse));
  return {
    rps: byRate[byRate.length - 1]!.rps,
    rpsMedian: median.rps,
    rpsMin: byRate[0]!.rps,
    cpuUsPerResponse,
    cpuUsPerResponseMean: (cpuSecondsTotal / Math.max(1, completed)) * 1e6,
    oneCoreCapacity: 1e6 / cpuUsPerResponse,
    serverCpu: mean((s) => s.serverCpu),
    upstreamCpu: mean((s) => s.upstreamCpu),
    loadCpu: mean((s) => s.loadCpu),
    latency: summarize(slices.flatMap((s) => s.latencyMs)),
    threadUs: threadMeans(slices, completed),
    failures: slices.reduce((sum, s) => sum + s.failures, 0),
    completed,
    slices: slices.map(({ latencyMs: _, ...rest }) => rest),
  };
}

/** Each kind of thread's CPU per response over all slices (weighted by their responses). */
function threadMeans(slices: ThroughputSlice[], completed: number): Partial<Record<ThreadKind, number>> | null {
  if (completed === 0 || slices.some((s) => s.threadUs === null)) return null;
  const out: Partial<Record<ThreadKind, number>> = {};
  for (const s of slices) {
    for (const [kind, us] of Object.entries(s.threadUs!) as Array<[ThreadKind, number]>)
      out[kind] = (out[kind] ?? 0) + (us * s.completed) / completed;
  }
  return out;
}
