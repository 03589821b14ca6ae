// The processes a run measures, each in its own process, and how to call each of them:
// the upstream itself (direct), the bare Node proxy, Portkey's gateway and switchyard (and
// switchyard with metrics and the request log off, for the telemetry overhead). Every one
// but the upstream's is started with bench/loop-delay-preload.ts, so its event loop's
// delay can be read (all are Node programs).

import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from './processes.ts';
import { GATEWAY_MODEL, UPSTREAM_MODEL } from './scenarios.ts';
import { gatewayLaunch, UPSTREAM_KEY } from './switchyard-config.ts';

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
const PRELOAD = ['--import', join(BENCH, 'loop-delay-preload.ts')];
const JSON_TYPE = { 'content-type': 'application/json' };

export interface Target {
  name: string;
  origin: string;
  headers: Record<string, string>;
  model: string;
  /** The process serving `origin`. */
  pid: number;
  /** Its IPC channel, when it runs bench/loop-delay-preload.ts. */
  proc?: ChildProcess;
}

export const NAMES = {
  direct: 'direct',
  proxy: 'bare proxy',
  portkey: 'Portkey',
  switchyard: 'switchyard',
  telemetryOff: 'switchyard, telemetry off',
  idle: 'idle Node process',
} as const;

/** bench/idle-probe.ts: the event-loop delay of a process that does nothing (the machine's stalls). */
export async function startIdleProbe(): Promise<{ child: Child<unknown>; target: Target }> {
  const child = await startChild<unknown>(NAMES.idle, join(BENCH, 'idle-probe.ts'), [], { nodeArgs: PRELOAD, ipc: true });
  return { child, target: { name: NAMES.idle, origin: '', headers: {}, model: '', pid: child.pid, proc: child.proc } };
}

export function startUpstream(): Promise<Child<{ port: number }>> {
  return startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), [], { nodeArgs: PRELOAD, ipc: true });
}

export function directTarget(upstream: Child<{ port: number }>): Target {
  return {
    name: NAMES.direct,
    origin: `http://127.0.0.1:${upstream.info.port}`,
    headers: JSON_TYPE,
    model: UPSTREAM_MODEL,
    pid: upstream.pid,
    proc: upstream.proc,
  };
}

export async function startBareProxy(upstreamOrigin: string): Promise<{ child: Child<{ port: number }>; target: Target }> {
  const child = await startChild<{ port: number }>('bare proxy', join(BENCH, 'bare-proxy.ts'), [upstreamOrigin], {
    nodeArgs: PRELOAD,
    ipc: true,
  });
  return {
    child,
    target: {
      name: NAMES.proxy,
      origin: `http://127.0.0.1:${child.info.port}`,
      headers: JSON_TYPE,
      model: UPSTREAM_MODEL,
      pid: child.pid,
      proc: child.proc,
    },
  };
}

/** Portkey's gateway, told per request to forward to the bench upstream as an OpenAI-compatible host. */
export async function startPortkey(upstreamOrigin: string): Promise<{ child: Child<{ port: number }>; target: Target }> {
  const child = await startChild<{ port: number }>('Portkey', join(BENCH, 'portkey-server.ts'), [], {
    nodeArgs: PRELOAD,
    ipc: true,
    timeoutMs: 30_000,
  });
  return {
    child,
    target: {
      name: NAMES.portkey,
      origin: `http://127.0.0.1:${child.info.port}`,
      headers: {
        ...JSON_TYPE,
        authorization: `Bearer ${UPSTREAM_KEY}`,
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${upstreamOrigin}/v1`,
      },
      model: UPSTREAM_MODEL,
      pid: child.pid,
      proc: child.proc,
    },
  };
}

/** switchyard through its real composition root (bench/gateway-server.ts), with `npm start`'s Node flags; `telemetry` as BENCH_TELEMETRY. */
export async function startSwitchyard(
  upstreamOrigin: string,
  opts: { name?: string; telemetry?: 'on' | 'off'; nodeArgs?: string[]; root?: string } = {},
): Promise<{ child: Child<{ port: number; key: string }>; target: Target }> {
  const name = opts.name ?? NAMES.switchyard;
  // `root`: another checkout's gateway (e.g. a `git archive` of the commit before a change).
  // Its own flags, environment and preload (gatewayLaunch: another checkout's under this one's hook would load the type stripper).
  const launch = await gatewayLaunch(opts.root);
  const script = join(launch.bench, 'gateway-server.ts');
  const child = await startChild<{ port: number; key: string }>(name, script, [`${upstreamOrigin}/v1`], {
    // Started as `npm start` starts it (its young-generation flag), so its memory and pauses are what operators see.
    nodeArgs: [...launch.flags, '--import', join(launch.bench, 'loop-delay-preload.ts'), ...(opts.nodeArgs ?? [])],
    ipc: true,
    env: { ...launch.env, BENCH_TELEMETRY: opts.telemetry ?? 'on' },
  });
  return {
    child,
    target: {
      name,
      origin: `http://127.0.0.1:${child.info.port}`,
      headers: { ...JSON_TYPE, authorization: `Bearer ${child.info.key}` },
      model: GATEWAY_MODEL,
      pid: child.pid,
      proc: child.proc,
    },
  };
}

/** Has the bench upstream end every stream it still holds (bench/upstream-server.ts); resolves once they are ended. */
export async function releaseHeldStreams(upstreamOrigin: string): Promise<number> {
  const res = await fetch(`${upstreamOrigin}/bench/release-holds`, { method: 'POST' });
  return ((await res.json()) as { released: number }).released;
}
