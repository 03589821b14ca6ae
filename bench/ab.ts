// Same-minute A/B of switchyard's CPU per response: node bench/ab.ts <root A> <root B> [--stream] [--rounds N] [--seconds S]
// [--flags-a="<node flags>"] [--flags-b="<node flags>"] (added to `npm start`'s flags for that side: A/B of V8 flags, the
// same root given twice)
//
// Each root is a checkout of the project (e.g. this worktree and a `git archive` of the commit
// before a change, with node_modules linked); its bench/gateway-server.ts is started in front of
// one upstream, both pinned to CPU 1 (the upstream to CPU 0) when taskset is there, and they take
// turns at saturation (64 connections), alternating which goes first. The figure is the server's
// CPU µs per response, cheapest slice and mean, as in `npm run bench` (docs/benchmarks.md).

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { perRequest, readStoreCounts, startFleetEngines, type FleetEngines } from './lib/fleet-engines.ts';
import { checkTarget, warmUp } from './lib/measure.ts';
import { cpuSecondsOf, hasTaskset, killAll, rssMb, setAffinity, startChild, stopChild } from './lib/processes.ts';
import { GATEWAY_MODEL } from './lib/scenarios.ts';
import { gatewayLaunch } from './lib/switchyard-config.ts';
import type { Target } from './lib/targets.ts';
import { saturate, throughputSlice, throughputStats, type ThroughputSlice } from './lib/throughput.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stream: { type: 'boolean' },
    fleet: { type: 'boolean' },
    'flags-a': { type: 'string' },
    'flags-b': { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string' },
  },
});
if (positionals.length < 2) {
  process.stderr.write('usage: node bench/ab.ts <root A> <root B> [--stream] [--fleet] [--rounds N] [--seconds S]\n');
  process.exit(2);
}
const roots = positionals.map((p) => resolve(p));
const stream = flags.stream === true;
const rounds = Number(flags.rounds ?? 4);
const seconds = Number(flags.seconds ?? 3);
const connections = Number(flags.connections ?? 64);
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const extraFlags = [flags['flags-a'], flags['flags-b']].map((f) => (f ?? '').split(' ').filter((x) => x.length > 0));

let engines: FleetEngines | null = null;
try {
  engines = flags.fleet === true ? await startFleetEngines() : null;
  const fleetEnvs = await Promise.all(
    roots.map(async () => (engines === null ? null : { DATABASE_URL: await engines.database(), REDIS_URL: engines.redis.url })),
  );
  const upstream = await startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), []);
  const upstreamUrl = `http://127.0.0.1:${upstream.info.port}/v1`;
  // Each checkout's gateway with its own flags and environment (gatewayLaunch: its own type-stripped sources' hook).
  const launches = await Promise.all(roots.map((root) => gatewayLaunch(root)));
  const children = await Promise.all(
    roots.map((root, i) =>
      startChild<{ port: number; key: string }>(`gateway ${i}`, join(root, 'bench', 'gateway-server.ts'), [upstreamUrl], {
        nodeArgs: [...launches[i]!.flags, ...(extraFlags[i] ?? [])],
        env: { ...launches[i]!.env, ...(fleetEnvs[i] ?? {}) },
      }),
    ),
  );
  const targets: Target[] = children.map((c, i) => ({
    name: `${String.fromCharCode(65 + i)} ${roots[i]}${extraFlags[i]?.length ? ` ${extraFlags[i].join(' ')}` : ''}`,
    origin: `http://127.0.0.1:${c.info.port}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${c.info.key}` },
    model: GATEWAY_MODEL,
    pid: c.pid,
  }));
  if (hasTaskset()) {
    setAffinity(upstream.pid, '0');
    for (const t of targets) setAffinity(t.pid, '1');
  }
  for (const t of targets) {
    const bad = await checkTarget(t, stream);
    if (bad !== null) throw new Error(bad);
    await warmUp(t, 500);
    await saturate(t, stream, connections, 2);
  }
  const slices = new Map<string, ThroughputSlice[]>(targets.map((t) => [t.name, []]));
  const stores = new Map<string, { redis: number; postgres: number; cpuS: number; pgCpuS: number; responses: number }>(
    targets.map((t) => [t.name, { redis: 0, postgres: 0, cpuS: 0, pgCpuS: 0, responses: 0 }]),
  );
  for (let r = 0; r < rounds; r++) {
    for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
      const env = fleetEnvs[targets.indexOf(t)];
      const before = env == null ? null : await readStoreCounts(env.REDIS_URL, env.DATABASE_URL);
      const cpu0 = engines === null ? 0 : cpuSecondsOf(engines.pids());
      const pg0 = engines === null ? 0 : cpuSecondsOf(engines.postgresPids());
      const slice = await throughputSlice(t, { stream, connections, seconds, upstreamPid: upstream.pid });
      slices.get(t.name)!.push(slice);
      if (env != null && before !== null) {
        const counts = perRequest(before, await readStoreCounts(env.REDIS_URL, env.DATABASE_URL), slice.completed);
        const s = stores.get(t.name)!;
        s.cpuS += cpuSecondsOf(engines!.pids()) - cpu0;
        s.pgCpuS += cpuSecondsOf(engines!.postgresPids()) - pg0;
        s.redis += counts.redisCommands * slice.completed;
        s.postgres += (counts.postgresStatements ?? NaN) * slice.completed;
        s.responses += slice.completed;
      }
    }
  }
  log(
    `${stream ? 'streamed' : 'non-streamed'}, ${rounds} × ${seconds} s, ${connections} connections: CPU µs per response (cheapest / mean), best req/s`,
  );
  for (const t of targets) {
    const s = throughputStats(slices.get(t.name)!);
    const st = stores.get(t.name)!;
    const fleet =
      engines === null
        ? ''
        : `   Postgres+Redis CPU ${((st.cpuS / st.responses) * 1e6).toFixed(0)} µs (Postgres ${((st.pgCpuS / st.responses) * 1e6).toFixed(0)}); per response ${(st.redis / st.responses).toFixed(2)} Redis commands, ${(st.postgres / st.responses).toFixed(2)} Postgres statements`;
    log(
      `  ${t.name}: ${s.cpuUsPerResponse.toFixed(1)} / ${s.cpuUsPerResponseMean.toFixed(1)}   ${s.rps.toFixed(0)}/s   p50 ${s.latency.p50.toFixed(2)} ms   RSS ${rssMb(t.pid).toFixed(0)} MB   failed ${s.failures}${fleet}`,
    );
  }
  await Promise.all([...children.map((c) => stopChild(c)), stopChild(upstream)]);
} finally {
  killAll();
  await engines?.stop();
}
