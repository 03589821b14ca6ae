// npm run bench:memory — where the gateway's memory and GC time go, without the full bench.
// Starts the bench's upstream and gateway (bench/upstream-server.ts, bench/gateway-server.ts,
// the gateway with bench/gc-observer.ts preloaded), then: RSS and heap when idle; a load of
// REQUESTS non-streamed then REQUESTS streamed requests over CONNECTIONS connections; RSS,
// heap and the GC pauses of each load; RSS once idle again. Prints one JSON document.
//
// Env: PROBE_REQUESTS (default 20000), PROBE_CONNECTIONS (50), PROBE_NODE_ARGS (extra
// flags for the gateway, e.g. "--max-semi-space-size=4"), PROBE_SNAPSHOT=1 (the gateway
// writes a heap snapshot after the load, via --heapsnapshot-signal=SIGUSR1),
// PROBE_ALLOC_PROFILE=<file> (a sampling allocation profile of the non-streamed load,
// bench/allocation-sampler.ts), PROBE_ENV="NAME=value ..." (the gateway's environment, e.g.
// MALLOC_ARENA_MAX=2), PROBE_ROOT=<checkout> (another checkout's gateway). After the load, RSS
// every second for 12 s.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { rssMb } from './lib/processes.ts';
import { GATEWAY_MODEL } from './lib/scenarios.ts';
import { gatewayLaunch } from './lib/switchyard-config.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const requests = Number(process.env.PROBE_REQUESTS ?? 20000);
const connections = Number(process.env.PROBE_CONNECTIONS ?? 50);
const extraArgs = (process.env.PROBE_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);
const snapshot = process.env.PROBE_SNAPSHOT === '1';

interface Started {
  proc: ChildProcess;
  info: Record<string, unknown>;
  reports: string[];
}

async function start(script: string, args: string[], nodeArgs: string[], env: Record<string, string> = {}): Promise<Started> {
  const proc = spawn(process.execPath, [...nodeArgs, script.startsWith('/') ? script : join(BENCH, script), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const reports: string[] = [];
  proc.stderr.setEncoding('utf8');
  let errBuf = '';
  proc.stderr.on('data', (t: string) => {
    errBuf += t;
    let nl;
    while ((nl = errBuf.indexOf('\n')) >= 0) {
      const line = errBuf.slice(0, nl);
      errBuf = errBuf.slice(nl + 1);
      if (line.startsWith('GC-REPORT ')) reports.push(line.slice(10));
      else process.stderr.write(`${script}: ${line}\n`);
    }
  });
  proc.stdout.setEncoding('utf8');
  // The first line that is a JSON object is the child's ready line; every other line
  // (--trace-gc output, before or after it) goes to stderr, never left to fill the pipe.
  const info = await new Promise<Record<string, unknown>>((resolve) => {
    let buf = '';
    let ready = false;
    proc.stdout.on('data', (t: string) => {
      buf += t;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!ready && line.startsWith('{')) {
          ready = true;
          resolve(JSON.parse(line) as Record<string, unknown>);
        } else process.stderr.write(`${line}\n`);
      }
    });
  });
  return { proc, info, reports };
}

/** Resident memory by kind (kB → MB) from /proc/<pid>/smaps_rollup. */
function smapsRollup(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').matchAll(
    /^(Rss|Anonymous|Shared_Clean|Private_Clean|Private_Dirty):\s+(\d+) kB/gm,
  ))
    out[m[1]!] = Math.round(Number(m[2]) / 1024);
  if (process.env.PROBE_SMAPS === '1') {
    // The largest resident anonymous mappings (MB): V8's heap spaces, thread stacks and arenas, malloc's heap.
    const maps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
    const big = maps
      .map((m) => ({
        head: m.split('\n')[0]!,
        rss: Number(/^Rss:\s+(\d+)/m.exec(m)?.[1] ?? 0) / 1024,
        anon: Number(/^Anonymous:\s+(\d+)/m.exec(m)?.[1] ?? 0) / 1024,
      }))
      .filter((m) => m.anon >= 1)
      .sort((a, b) => b.anon - a.anon)
      .slice(0, 25);
    for (const m of big) process.stderr.write(`smaps ${m.anon.toFixed(1).padStart(6)} MB  ${m.head}\n`);
  }
  return out;
}

async function report(g: Started): Promise<unknown> {
  const before = g.reports.length;
  g.proc.kill('SIGUSR2');
  while (g.reports.length === before) await new Promise((r) => setTimeout(r, 20));
  return JSON.parse(g.reports[before]!);
}

async function load(pool: Pool, key: string, stream: boolean): Promise<void> {
  const body = JSON.stringify({ model: GATEWAY_MODEL, stream, messages: [{ role: 'user', content: 'Say something short.' }] });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests) {
      next++;
      const res = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

// Another checkout's gateway with that checkout's own flags, environment and preloads (gatewayLaunch).
const root = process.env.PROBE_ROOT;
const launch = await gatewayLaunch(root);
/** A load's report with the bytes allocated per request (gc-observer's exact count) and the scavenges per 10,000 requests. */
function perRequest(r: Record<string, unknown> & { allocatedBytes?: number; gc?: Record<string, { count: number }> }): object {
  return {
    ...r,
    allocatedKbPerRequest: r.allocatedBytes === undefined ? null : Math.round(r.allocatedBytes / requests / 102.4) / 10,
    scavengesPer10k: Math.round((((r.gc?.scavenge?.count ?? 0) * 10000) / requests) * 10) / 10,
  };
}

const upstream = await start('upstream-server.ts', [], []);
const allocProfile = process.env.PROBE_ALLOC_PROFILE;
// The gateway as npm start runs it (its Node flags and the type-stripped sources' hook first, so the preloads below are served by it too).
const gwArgs = [
  ...launch.flags,
  '--import',
  join(launch.bench, 'gc-observer.ts'),
  ...(allocProfile ? ['--import', join(launch.bench, 'allocation-sampler.ts')] : []),
  ...extraArgs,
  ...(snapshot ? ['--heapsnapshot-signal=SIGUSR1'] : []),
];
const probeEnv = Object.fromEntries(
  (process.env.PROBE_ENV ?? '')
    .split(' ')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const gatewayScript = root === undefined ? 'gateway-server.ts' : join(root, 'bench', 'gateway-server.ts');
const gateway = await start(gatewayScript, [`http://127.0.0.1:${upstream.info.port as number}/v1`], gwArgs, {
  ...launch.env,
  ...probeEnv,
  ...(allocProfile ? { ALLOC_PROFILE: allocProfile } : {}),
});
const pid = gateway.proc.pid!;
const key = gateway.info.key as string;
await new Promise((r) => setTimeout(r, 500));
const out: Record<string, unknown> = { requests, connections, nodeArgs: extraArgs };
out.idle = { rssMb: rssMb(pid), ...((await report(gateway)) as object) };
const pool = new Pool(`http://127.0.0.1:${gateway.info.port as number}`, { connections });
let t = performance.now();
await load(pool, key, false);
out.nonStreamed = perRequest({ seconds: (performance.now() - t) / 1000, rssMb: rssMb(pid), ...((await report(gateway)) as object) });
t = performance.now();
await load(pool, key, true);
out.streamed = perRequest({ seconds: (performance.now() - t) / 1000, rssMb: rssMb(pid), ...((await report(gateway)) as object) });
await pool.close();
// RSS every second for 12 s after the load (issue 29: under 150 MB within 10 s).
const series: number[] = [];
for (let s = 0; s < 12; s++) {
  await new Promise((r) => setTimeout(r, 1000));
  series.push(Math.round(rssMb(pid)));
}
out.idleAfter = {
  rssMb: series[0],
  series,
  under150AfterS: series.findIndex((mb) => mb < 150) + 1 || null,
  ...((await report(gateway)) as object),
  smaps: smapsRollup(pid),
};
if (snapshot) {
  gateway.proc.kill('SIGUSR1');
  await new Promise((r) => setTimeout(r, 3000));
}
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
gateway.proc.stdin!.end();
upstream.proc.stdin!.end();
