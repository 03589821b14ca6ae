// CPU profile of switchyard at saturation: node bench/profile-load.ts [--stream] [--seconds S] [--dir D]
// Starts the upstream and bench/gateway-server.ts under --cpu-prof (pinned as in `npm run bench`),
// warms it, loads it with 64 connections for S seconds, stops it (the profile is written at that
// clean exit) and prints bench/lib/profile.ts's summary: self time by function and by package.

import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkTarget, warmUp } from './lib/measure.ts';
import { hasTaskset, killAll, setAffinity, startChild, stopChild } from './lib/processes.ts';
import { formatProfile, summarizeProfile } from './lib/profile.ts';
import { GATEWAY_MODEL } from './lib/scenarios.ts';
import { gatewayNodeFlags } from './lib/switchyard-config.ts';
import type { Target } from './lib/targets.ts';
import { saturate } from './lib/throughput.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({ options: { stream: { type: 'boolean' }, seconds: { type: 'string' }, dir: { type: 'string' }, top: { type: 'string' } } });
const stream = flags.stream === true;
const dir = resolve(flags.dir ?? join(BENCH, 'results', 'profiles', `load-${Date.now()}`));
mkdirSync(dir, { recursive: true });
try {
  const upstream = await startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), []);
  const gw = await startChild<{ port: number; key: string }>('switchyard', join(BENCH, 'gateway-server.ts'), [`http://127.0.0.1:${upstream.info.port}/v1`], {
    nodeArgs: [...gatewayNodeFlags(), '--cpu-prof', '--cpu-prof-dir', dir],
  });
  const target: Target = { name: 'switchyard', origin: `http://127.0.0.1:${gw.info.port}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.info.key}` }, model: GATEWAY_MODEL, pid: gw.pid };
  if (hasTaskset()) {
    setAffinity(upstream.pid, '0');
    setAffinity(gw.pid, '1');
  }
  const bad = await checkTarget(target, stream);
  if (bad !== null) throw new Error(bad);
  await warmUp(target, 500);
  await saturate(target, stream, 64, Number(flags.seconds ?? 8));
  await stopChild(gw, 30_000);
  await stopChild(upstream);
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f))[0];
  if (file === undefined) throw new Error('no profile written');
  process.stdout.write(`${file}\n${formatProfile(summarizeProfile(file, resolve(BENCH, '..'), Number(flags.top ?? 30)))}\n`);
} finally {
  killAll();
}
