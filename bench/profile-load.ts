// CPU profile of switchyard at saturation: node bench/profile-load.ts [--stream | --tools] [--seconds S] [--dir D] [--fleet] [--no-profile] [--no-pin]
// Starts the upstream and bench/gateway-server.ts under --cpu-prof (pinned as in `npm run bench`),
// warms it, loads it with 64 connections for S seconds, stops it (the profile is written at that
// clean exit) and prints bench/lib/profile.ts's summary: self time by function and by package.
// --fleet: the gateway is a fleet instance on Postgres and Redis (started here with the tests'
// harness, bench/lib/fleet-engines.ts); the Redis commands and Postgres statements it made per
// response during the load are printed too. --no-profile: only those counts, no --cpu-prof.

import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { perRequest, readStoreCounts, startFleetEngines, type FleetEngines } from './lib/fleet-engines.ts';
import { checkTarget, warmUp } from './lib/measure.ts';
import { hasTaskset, killAll, setAffinity, startChild, stopChild } from './lib/processes.ts';
import { formatProfile, summarizeProfile } from './lib/profile.ts';
import { GATEWAY_MODEL } from './lib/scenarios.ts';
import { gatewayEnv, gatewayNodeFlags } from './lib/switchyard-config.ts';
import type { Target } from './lib/targets.ts';
import { throughputSlice } from './lib/throughput.ts';
import { toolHeavyBody } from './lib/tool-heavy-request.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({
  options: {
    stream: { type: 'boolean' },
    tools: { type: 'boolean' },
    seconds: { type: 'string' },
    dir: { type: 'string' },
    top: { type: 'string' },
    fleet: { type: 'boolean' },
    'no-profile': { type: 'boolean' },
    'no-pin': { type: 'boolean' },
  },
});
// --tools: the tool-heavy agent request of the budget (bench/lib/tool-heavy-request.ts), streamed.
const stream = flags.stream === true || flags.tools === true;
const profile = flags['no-profile'] !== true;
const dir = resolve(flags.dir ?? join(BENCH, 'results', 'profiles', `load-${Date.now()}`));
if (profile) mkdirSync(dir, { recursive: true });
let engines: FleetEngines | null = null;
try {
  engines = flags.fleet === true ? await startFleetEngines() : null;
  const fleetEnv = engines === null ? null : { DATABASE_URL: await engines.database(), REDIS_URL: engines.redis.url };
  const upstream = await startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), []);
  const gw = await startChild<{ port: number; key: string }>(
    'switchyard',
    join(BENCH, 'gateway-server.ts'),
    [`http://127.0.0.1:${upstream.info.port}/v1`],
    {
      nodeArgs: [...gatewayNodeFlags(), ...(profile ? ['--cpu-prof', '--cpu-prof-dir', dir] : [])],
      env: { ...gatewayEnv(), ...(fleetEnv ?? {}) },
    },
  );
  const target: Target = {
    name: 'switchyard',
    origin: `http://127.0.0.1:${gw.info.port}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.info.key}` },
    model: GATEWAY_MODEL,
    pid: gw.pid,
  };
  // Unpinned, the writer thread runs on the other core: the profile is then the main thread's own work
  // (pinned, a thread it wakes runs while it waits in the call, and shows as postMessage or writev).
  if (hasTaskset() && flags['no-pin'] !== true) {
    setAffinity(upstream.pid, '0');
    setAffinity(gw.pid, '1');
  }
  const bad = await checkTarget(target, stream);
  if (bad !== null) throw new Error(bad);
  await warmUp(target, 500);
  const seconds = Number(flags.seconds ?? 8);
  const before = fleetEnv === null ? null : await readStoreCounts(fleetEnv.REDIS_URL, fleetEnv.DATABASE_URL);
  const slice = await throughputSlice(target, {
    stream,
    connections: 64,
    seconds,
    upstreamPid: upstream.pid,
    ...(flags.tools === true ? { body: toolHeavyBody(GATEWAY_MODEL, true) } : {}),
  });
  process.stdout.write(
    `${slice.completed} responses (${slice.rps.toFixed(0)}/s), ${slice.cpuUsPerResponse.toFixed(0)} µs gateway CPU per response\n`,
  );
  if (fleetEnv !== null && before !== null) {
    const counts = perRequest(before, await readStoreCounts(fleetEnv.REDIS_URL, fleetEnv.DATABASE_URL), slice.completed);
    process.stdout.write(
      `per response: ${counts.redisCommands.toFixed(2)} Redis commands (scripts' inner calls included), ${counts.postgresStatements?.toFixed(2) ?? '?'} Postgres statements\n`,
    );
    for (const d of counts.detail) process.stdout.write(`  ${d.store.padEnd(8)} ${d.perRequest.toFixed(3).padStart(8)}  ${d.what}\n`);
  }
  await stopChild(gw, 30_000);
  await stopChild(upstream);
  if (profile) {
    const file = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f))[0];
    if (file === undefined) throw new Error('no profile written');
    process.stdout.write(`${file}\n${formatProfile(summarizeProfile(file, resolve(BENCH, '..'), Number(flags.top ?? 30)))}\n`);
  }
} finally {
  killAll();
  await engines?.stop();
}
