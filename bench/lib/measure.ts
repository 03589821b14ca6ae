// The measurements themselves. Each takes a Target: where to send, with which headers
// (the gateway needs its key) and which model name.

import autocannon from 'autocannon';
import { Client, Pool } from 'undici';
import { chatBody, HOLD_MARKER, PACE_MARKER, PACE_WORDS, paceWord } from './scenarios.ts';
import { cpuSeconds, rssMb } from './processes.ts';

export const PATH = '/v1/chat/completions';

export interface Target {
  name: string;
  origin: string;
  headers: Record<string, string>;
  model: string;
  /** The process serving `origin`. */
  pid: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- latency at 1 connection

export interface LatencyStats {
  /** Milliseconds, whole response (for a stream: until its last byte). */
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  samples: number;
  errors: number;
  /** CPU of the serving process per request, µs (for direct: the upstream's own). */
  serverCpuUs: number;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function stats(samplesNs: number[], errors: number, serverCpuUs = NaN): LatencyStats {
  const sorted = Float64Array.from(samplesNs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const ms = (ns: number): number => ns / 1e6;
  return {
    p50: ms(percentile(sorted, 0.5)),
    p90: ms(percentile(sorted, 0.9)),
    p99: ms(percentile(sorted, 0.99)),
    mean: ms(sum / Math.max(1, sorted.length)),
    min: ms(sorted[0] ?? NaN),
    samples: sorted.length,
    errors,
    serverCpuUs,
  };
}

/**
 * Sequential requests on one keep-alive connection, each timed with hrtime from sending
 * to the last byte of the answer. The targets take turns in `rounds` slices so that a
 * slow phase of the machine falls on all of them alike.
 */
export async function latencyAtOneConnection(targets: Target[], stream: boolean, seconds: number, rounds: number): Promise<Map<string, LatencyStats>> {
  const clients = targets.map((t) => new Client(t.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const samples = targets.map(() => [] as number[]);
  const errors = targets.map(() => 0);
  const cpu = targets.map(() => 0);
  const bodies = targets.map((t) => chatBody(t.model, stream));
  const once = async (i: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const res = await clients[i]!.request({ path: PATH, method: 'POST', headers: targets[i]!.headers, body: bodies[i]! });
    await res.body.text();
    const dt = Number(process.hrtime.bigint() - t0);
    if (res.statusCode !== 200) {
      errors[i]!++;
      return -1;
    }
    return dt;
  };
  try {
    // Warm-up: connections open, code paths compiled.
    for (let i = 0; i < targets.length; i++) for (let k = 0; k < 200; k++) await once(i);
    const slice = (seconds * 1000) / rounds;
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < targets.length; i++) {
        const until = performance.now() + slice;
        const c0 = cpuSeconds(targets[i]!.pid);
        while (performance.now() < until) {
          const dt = await once(i);
          if (dt >= 0) samples[i]!.push(dt);
        }
        cpu[i]! += cpuSeconds(targets[i]!.pid) - c0;
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return new Map(targets.map((t, i) => [t.name, stats(samples[i]!, errors[i]!, (cpu[i]! / Math.max(1, samples[i]!.length)) * 1e6)]));
}

// ---------------------------------------------------------------- throughput at saturation

/** One autocannon run against one target. */
export interface ThroughputSlice {
  /** Completed 2xx responses (whole streams, when streamed) per second. */
  rps: number;
  completed: number;
  seconds: number;
  /** autocannon's latency under load, ms. */
  p50: number;
  p99: number;
  /** Errors, non-2xx answers and timeouts. */
  failures: number;
  /** CPU of the server under test over the slice, in cores (1 = one core busy). */
  serverCpu: number;
  /** CPU of the upstream (0 when it is the server under test) and of this load generator. */
  upstreamCpu: number;
  loadCpu: number;
  /** Server CPU seconds per completed response, in µs: its cost, whatever the machine's noise. */
  cpuUsPerResponse: number;
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
  /** Latency under load of the median slice, ms. */
  p50: number;
  p99: number;
  failures: number;
  slices: ThroughputSlice[];
}

function autocannonOptions(target: Target, stream: boolean, connections: number) {
  return {
    url: target.origin + PATH,
    method: 'POST',
    headers: target.headers,
    body: chatBody(target.model, stream),
    connections,
    pipelining: 1,
    timeout: 10,
  };
}

/** Saturation traffic that is not measured: opens the connections and warms the code. */
export async function saturate(target: Target, stream: boolean, connections: number, seconds: number): Promise<void> {
  await autocannon({ ...autocannonOptions(target, stream, connections), duration: seconds });
}

export async function throughputSlice(target: Target, upstreamPid: number, stream: boolean, connections: number, seconds: number): Promise<ThroughputSlice> {
  const s0 = cpuSeconds(target.pid);
  const u0 = target.pid === upstreamPid ? 0 : cpuSeconds(upstreamPid);
  const l0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await autocannon({ ...autocannonOptions(target, stream, connections), duration: seconds });
  const wall = (performance.now() - t0) / 1000;
  const l1 = process.cpuUsage(l0);
  const serverSeconds = cpuSeconds(target.pid) - s0;
  return {
    rps: r['2xx'] / r.duration,
    completed: r['2xx'],
    seconds: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.errors + r.non2xx + r.timeouts,
    serverCpu: serverSeconds / wall,
    upstreamCpu: target.pid === upstreamPid ? 0 : (cpuSeconds(upstreamPid) - u0) / wall,
    loadCpu: (l1.user + l1.system) / 1e6 / wall,
    cpuUsPerResponse: (serverSeconds / Math.max(1, r['2xx'])) * 1e6,
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
    p50: median.p50,
    p99: median.p99,
    failures: slices.reduce((sum, s) => sum + s.failures, 0),
    slices,
  };
}

// ---------------------------------------------------------------- open streams and memory

export interface OpenStreamsStep {
  requested: number;
  /** Streams whose first chunk had reached the client when RSS was sampled. */
  opened: number;
  /** Seconds until every stream requested so far was open (or the wait gave up). */
  openSeconds: number;
  rssMb: number;
  /** (rss − rssBefore) / requested, scaled to 1000 streams. */
  mbPerThousand: number;
}

export interface OpenStreamsStats {
  rssBeforeMb: number;
  /** Half the streams, then all of them: the first step stays under any connection cap. */
  steps: OpenStreamsStep[];
  rssAfterMb: number;
  /** Requests that failed before the benchmark aborted them. */
  failed: number;
}

const STALL_MS = 2000;

/**
 * Opens streams that the upstream holds open (one small chunk a second) in two steps,
 * n/2 then n, waits after each until every stream has delivered its first chunk (or no
 * new one did for two seconds, or `maxWaitMs` passed), samples the server's RSS, and finally aborts them all.
 */
export async function openStreamsMemory(target: Target, n: number, maxWaitMs: number): Promise<OpenStreamsStats> {
  await sleep(500);
  const rssBeforeMb = rssMb(target.pid);
  const pool = new Pool(target.origin, { connections: n, pipelining: 1, bodyTimeout: 0, headersTimeout: 0 });
  const ctrl = new AbortController();
  const body = chatBody(target.model, true, HOLD_MARKER);
  let opened = 0;
  let failed = 0;
  let waiting: { count: number; resolve: () => void } | null = null;
  const openOne = async (): Promise<void> => {
    const res = await pool.request({ path: PATH, method: 'POST', headers: target.headers, body, signal: ctrl.signal });
    let first = true;
    res.body.on('data', () => {
      if (!first) return;
      first = false;
      opened++;
      if (waiting !== null && opened >= waiting.count) waiting.resolve();
    });
    await new Promise<void>((resolve) => {
      res.body.once('end', resolve);
      res.body.once('error', () => resolve());
      res.body.once('close', resolve);
    });
  };
  const requests: Promise<void>[] = [];
  const steps: OpenStreamsStep[] = [];
  const t0 = performance.now();
  try {
    for (const count of [Math.floor(n / 2), n]) {
      while (requests.length < count) requests.push(openOne().catch(() => void (ctrl.signal.aborted || failed++)));
      if (opened < count) {
        // Until all are open, or none opened for STALL_MS (a connection cap), or maxWaitMs.
        let stall: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (waiting = { count, resolve })),
          sleep(maxWaitMs),
          new Promise<void>((resolve) => {
            let last = opened;
            stall = setInterval(() => {
              if (opened === last) resolve();
              last = opened;
            }, STALL_MS);
          }),
        ]);
        clearInterval(stall);
      }
      waiting = null;
      const openSeconds = (performance.now() - t0) / 1000;
      // Let the server settle (buffers allocated, a chunk or two through every stream).
      await sleep(1500);
      const rss = Math.max(rssMb(target.pid), (await sleep(300), rssMb(target.pid)));
      steps.push({ requested: count, opened, openSeconds, rssMb: rss, mbPerThousand: ((rss - rssBeforeMb) / count) * 1000 });
    }
  } finally {
    ctrl.abort();
    await Promise.allSettled(requests);
    await pool.destroy();
  }
  await sleep(1500);
  return { rssBeforeMb, steps, rssAfterMb: rssMb(target.pid), failed };
}

// ---------------------------------------------------------------- chunk by chunk

export interface ChunkTimingStats {
  /** Median ms from sending to the arrival of each paced word (w1 comes at once, then one per PACE_MS). */
  wordMs: number[];
  repeats: number;
  errors: number;
}

/** Sequential paced streams; records when each word reaches the client. */
export async function chunkTiming(target: Target, repeats: number): Promise<ChunkTimingStats> {
  const client = new Client(target.origin, { pipelining: 1 });
  const body = chatBody(target.model, true, PACE_MARKER);
  const needles = Array.from({ length: PACE_WORDS }, (_, k) => JSON.stringify(paceWord(k + 1)));
  const times = needles.map(() => [] as number[]);
  let errors = 0;
  try {
    for (let r = 0; r < repeats + 2; r++) {
      const t0 = performance.now();
      const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body });
      res.body.setEncoding('utf8');
      let text = '';
      let next = 0;
      const seen: number[] = [];
      for await (const chunk of res.body) {
        const now = performance.now() - t0;
        text += chunk as string;
        while (next < needles.length && text.includes(needles[next]!)) {
          seen.push(now);
          next++;
        }
      }
      if (res.statusCode !== 200 || seen.length !== needles.length) {
        errors++;
        continue;
      }
      // The first two are warm-up.
      if (r >= 2) seen.forEach((ms, k) => times[k]!.push(ms));
    }
  } finally {
    await client.close();
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
  };
  return { wordMs: times.map(median), repeats, errors };
}

/** One request of each kind must succeed before anything is measured. */
export async function checkTarget(target: Target): Promise<void> {
  const client = new Client(target.origin, { pipelining: 1 });
  try {
    for (const stream of [false, true]) {
      const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body: chatBody(target.model, stream) });
      const text = await res.body.text();
      const ok = res.statusCode === 200 && (stream ? text.includes('data: [DONE]') : text.includes('"choices"'));
      if (!ok) throw new Error(`${target.name} answered a ${stream ? 'streamed' : 'non-streamed'} request with ${res.statusCode}: ${text.slice(0, 500)}`);
    }
  } finally {
    await client.close();
  }
}

/** Sequential requests, not timed: brings a fresh server's code paths up to speed. */
export async function warmUp(target: Target, count: number): Promise<void> {
  const client = new Client(target.origin, { pipelining: 1 });
  try {
    for (let k = 0; k < count; k++) {
      const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body: chatBody(target.model, k % 2 === 0) });
      await res.body.text();
    }
  } finally {
    await client.close();
  }
}
