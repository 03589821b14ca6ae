// The soak (issue 29): node bench/soak.ts [--minutes 30] [--rate 200] [--mix 45,40,15] [--root CHECKOUT] [--json PATH]
//
// switchyard (bench/gateway-server.ts, every promise on, started as `npm start` starts it) in
// front of the bench upstream, under a mixed load at a fixed rate below saturation: 45 % plain
// chats, 40 % streamed chats, 15 % tool-heavy agent requests (bench/lib/tool-heavy-request.ts).
// Open loop: requests leave on a fixed schedule whatever the answers do (at most 256 in
// flight), and each one's latency is measured from when it was due, so a stall is counted for
// every request it delayed (no coordinated omission). Prints, per minute: requests, errors,
// p50/p99/p99.9 latency (ms), the gateway's RSS and CPU; at the end the least-squares slope of
// RSS and of p99 per minute over the minutes after the first (warm-up), which shows a leak as
// a steady climb. Unpinned; the machine's other work shows in the figures.

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { summarize } from './lib/percentiles.ts';
import { cpuSeconds, killAll, rssMb, stopChild } from './lib/processes.ts';
import { chatBody } from './lib/scenarios.ts';
import { startSwitchyard, startUpstream } from './lib/targets.ts';
import { PATH } from './lib/throughput.ts';
import { toolHeavyBody } from './lib/tool-heavy-request.ts';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string' },
    rate: { type: 'string' },
    root: { type: 'string' },
    json: { type: 'string' },
    mix: { type: 'string' },
  },
});
// --mix P,S,T: the shares of plain, streamed and tool-heavy requests (default 45,40,15).
const [mixPlain, mixStreamed, mixTools] = (flags.mix ?? '45,40,15').split(',').map(Number) as [number, number, number];
const mixTotal = mixPlain + mixStreamed + mixTools;
const minutes = Number(flags.minutes ?? 30);
const rate = Number(flags.rate ?? 200);
const MAX_IN_FLIGHT = 256;
const log = (m: string): void => void process.stderr.write(`${m}\n`);

interface Minute {
  minute: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  rssMb: number;
  cpuShare: number;
}

/** Least-squares slope of ys over xs. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

try {
  const upstream = await startUpstream();
  const gw = await startSwitchyard(`http://127.0.0.1:${upstream.info.port}`, flags.root === undefined ? {} : { root: resolve(flags.root) });
  const t = gw.target;
  const bodies = { plain: chatBody(t.model, false), streamed: chatBody(t.model, true), tools: toolHeavyBody(t.model, true) };
  const pool = new Pool(t.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
  let seed = 42;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  const send = async (due: number): Promise<void> => {
    const r = random();
    const body = r < mixPlain / mixTotal ? bodies.plain : r < (mixPlain + mixStreamed) / mixTotal ? bodies.streamed : bodies.tools;
    inFlight++;
    try {
      const res = await pool.request({ path: PATH, method: 'POST', headers: t.headers, body });
      await res.body.text();
      if (res.statusCode !== 200) errors++;
      else latencies.push(performance.now() - due);
    } catch {
      errors++;
    } finally {
      inFlight--;
    }
  };
  log(
    `soak: ${minutes} min at ${rate} requests/s (plain, streamed, tool-heavy: ${mixPlain}:${mixStreamed}:${mixTools}), gateway pid ${t.pid}`,
  );
  process.stdout.write('minute  requests  errors  p50 ms  p99 ms  p99.9 ms  max ms  RSS MB  CPU\n');
  const out: Minute[] = [];
  const start = performance.now();
  let sent = 0;
  let minuteStart = start;
  let cpu0 = cpuSeconds(t.pid);
  for (let minute = 1; minute <= minutes; minute++) {
    const end = start + minute * 60_000;
    while (performance.now() < end) {
      // Every request due by now leaves now (open loop), unless 256 are already in flight (counted as errors).
      const dueCount = Math.floor(((performance.now() - start) / 1000) * rate);
      while (sent < dueCount) {
        const due = start + (sent / rate) * 1000;
        sent++;
        if (inFlight >= MAX_IN_FLIGHT) errors++;
        else void send(due);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const now = performance.now();
    const cpu1 = cpuSeconds(t.pid);
    const l = summarize(latencies);
    const m: Minute = {
      minute,
      requests: l.samples,
      errors,
      p50: l.p50,
      p99: l.p99,
      p999: l.p999,
      max: l.max,
      rssMb: rssMb(t.pid),
      cpuShare: (cpu1 - cpu0) / ((now - minuteStart) / 1000),
    };
    out.push(m);
    process.stdout.write(
      `${String(minute).padStart(6)}  ${String(m.requests).padStart(8)}  ${String(m.errors).padStart(6)}  ${m.p50.toFixed(2).padStart(6)}  ${m.p99.toFixed(2).padStart(6)}  ${m.p999.toFixed(2).padStart(8)}  ${m.max.toFixed(1).padStart(6)}  ${m.rssMb.toFixed(0).padStart(6)}  ${(m.cpuShare * 100).toFixed(0).padStart(2)} %\n`,
    );
    latencies = [];
    errors = 0;
    cpu0 = cpu1;
    minuteStart = now;
  }
  const steady = out.slice(1);
  const xs = steady.map((m) => m.minute);
  const rssSlope = slope(
    xs,
    steady.map((m) => m.rssMb),
  );
  const p99Slope = slope(
    xs,
    steady.map((m) => m.p99),
  );
  process.stdout.write(
    `slope over minutes 2-${minutes}: RSS ${rssSlope.toFixed(2)} MB/min, p99 ${p99Slope.toFixed(3)} ms/min; RSS ${Math.min(...steady.map((m) => m.rssMb)).toFixed(0)}-${Math.max(...steady.map((m) => m.rssMb)).toFixed(0)} MB\n`,
  );
  if (flags.json !== undefined)
    writeFileSync(
      flags.json,
      `${JSON.stringify({ minutes, rate, perMinute: out, rssSlopeMbPerMin: rssSlope, p99SlopeMsPerMin: p99Slope }, null, 2)}\n`,
    );
  await pool.close();
  await Promise.all([stopChild(gw.child), stopChild(upstream)]);
} finally {
  killAll();
}
