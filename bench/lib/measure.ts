// Memory with open streams, chunk-by-chunk timing, and the checks and warm-up before a
// target is measured. (Latency: latency.ts; saturation: throughput.ts.)

import { Client, Pool } from 'undici';
import { chatBody, HOLD_MARKER, PACE_MARKER, PACE_WORDS, paceWord } from './scenarios.ts';
import { rssMb } from './processes.ts';
import type { Target } from './targets.ts';
import { PATH } from './throughput.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
 * new one did for two seconds, or `maxWaitMs` passed), samples the server's RSS, and finally aborts them all
 * and has the upstream end what it still holds (`releaseHeld`).
 */
export async function openStreamsMemory(
  target: Target,
  n: number,
  maxWaitMs: number,
  releaseHeld?: () => Promise<void>,
): Promise<OpenStreamsStats> {
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
    // The upstream ends the streams it still holds (a gateway reads on for their usage for a
    // grace): they are settled now, not aborted at the end of the grace during the next phase.
    await releaseHeld?.();
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

/** One request of a kind must succeed before that kind is measured: null when it did, else what went wrong. */
export async function checkTarget(target: Target, stream: boolean): Promise<string | null> {
  const client = new Client(target.origin, { pipelining: 1 });
  try {
    const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body: chatBody(target.model, stream) });
    const text = await res.body.text();
    const ok = res.statusCode === 200 && (stream ? text.includes('data: [DONE]') : text.includes('"choices"'));
    return ok
      ? null
      : `${target.name} answered a ${stream ? 'streamed' : 'non-streamed'} request with ${res.statusCode}: ${text.slice(0, 300)}`;
  } catch (err) {
    return `${target.name} failed a ${stream ? 'streamed' : 'non-streamed'} request: ${(err as Error).message}`;
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
