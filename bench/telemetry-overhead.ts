// npm run bench:telemetry [-- --quick | --in-process]
//
// First in process (bench/lib/telemetry-micro.ts): the CPU Telemetry adds per request.
// Then end to end:
// What metrics and the request log cost on the hot path: four gateways (bench/gateway-server.ts)
// in front of the same upstream: telemetry off (BENCH_TELEMETRY=off), on as in production
// (metrics on, a request log line per request at info, written to /dev/null), metrics
// only, request log only. They take turns at saturation, non-streamed then streamed, each
// pinned to the same CPU when taskset is there; the figure is the server's CPU per response
// in its cheapest slice (the steadier comparison on a noisy machine, docs/benchmarks.md),
// and the difference in µs and %. Traces are off in both (off by default; on, they cost the
// span export).

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkTarget, warmUp } from './lib/measure.ts';
import type { Target } from './lib/targets.ts';
import { saturate, throughputSlice, throughputStats, type ThroughputSlice } from './lib/throughput.ts';
import { hasTaskset, killAll, setAffinity, startChild, stopChild } from './lib/processes.ts';
import { GATEWAY_MODEL } from './lib/scenarios.ts';
import { measureTelemetryInProcess } from './lib/telemetry-micro.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, 'in-process': { type: 'boolean' } } });
const quick = flags.quick === true || process.env.BENCH_QUICK === '1';
const seconds = quick ? 2 : 5;
const rounds = quick ? 3 : 5;
const connections = 50;

const sign = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);

log('telemetry overhead in process (Telemetry.requestStarted + requestEnded, CPU µs per request):');
for (const r of measureTelemetryInProcess(quick ? 50_000 : 200_000)) log(`  ${r.variant.padEnd(8)} ${r.usPerRequest.toFixed(2)}`);
if (flags['in-process'] === true) process.exit(0);

try {
  const upstream = await startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), []);
  const upstreamUrl = `http://127.0.0.1:${upstream.info.port}/v1`;
  const VARIANTS = ['off', 'on', 'metrics', 'log'] as const;
  const children = await Promise.all(
    VARIANTS.map((v) =>
      startChild<{ port: number; key: string }>(`telemetry ${v}`, join(BENCH, 'gateway-server.ts'), [upstreamUrl], {
        env: { BENCH_TELEMETRY: v },
      }),
    ),
  );
  const target = (name: string, c: (typeof children)[number]): Target => ({
    name,
    origin: `http://127.0.0.1:${c.info.port}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${c.info.key}` },
    model: GATEWAY_MODEL,
    pid: c.pid,
  });
  const targets = VARIANTS.map((v, i) => target(v, children[i]!));
  const pin = hasTaskset();
  if (pin) {
    setAffinity(upstream.pid, '0');
    for (const t of targets) setAffinity(t.pid, '1');
  }
  for (const t of targets) {
    for (const stream of [false, true]) {
      const bad = await checkTarget(t, stream);
      if (bad !== null) throw new Error(bad);
    }
    await warmUp(t, 500);
  }
  const results: string[] = [];
  for (const stream of [false, true]) {
    const slices = new Map<string, ThroughputSlice[]>(targets.map((t) => [t.name, []]));
    for (const t of targets) await saturate(t, stream, connections, 1);
    for (let r = 0; r < rounds; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse())
        slices.get(t.name)!.push(await throughputSlice(t, { stream, connections, seconds, upstreamPid: upstream.pid }));
    }
    const stats = targets.map((t) => throughputStats(slices.get(t.name)!));
    const base = stats[0]!;
    results.push(`${stream ? 'streamed' : 'non-streamed'} (CPU µs per response, cheapest slice / mean; best req/s):`);
    for (let i = 0; i < targets.length; i++) {
      const s = stats[i]!;
      const d = s.cpuUsPerResponse - base.cpuUsPerResponse;
      const dm = s.cpuUsPerResponseMean - base.cpuUsPerResponseMean;
      results.push(
        `  ${targets[i]!.name.padEnd(8)} ${s.cpuUsPerResponse.toFixed(1).padStart(6)} / ${s.cpuUsPerResponseMean.toFixed(1).padStart(6)}` +
          (i === 0
            ? ''
            : `   ${sign(d)} µs (${sign((d / base.cpuUsPerResponse) * 100)} %) / ${sign(dm)} µs (${sign((dm / base.cpuUsPerResponseMean) * 100)} %)`) +
          `   ${s.rps.toFixed(0)} req/s`,
      );
    }
  }
  log(
    `telemetry overhead (${pin ? 'servers pinned to CPU 1' : 'not pinned'}, ${rounds} × ${seconds} s slices each, ${connections} connections):`,
  );
  for (const line of results) log(`  ${line}`);
  await Promise.all([...children.map((c) => stopChild(c)), stopChild(upstream)]);
} finally {
  killAll();
}
