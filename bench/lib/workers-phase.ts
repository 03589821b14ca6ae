// The workers dimension (issue 13): switchyard served by its real CLI with `--workers 1`
// and `--workers 2`, on the embedded SQLite store and on a fleet's Postgres + Redis
// (started here with the tests' harness: test/support/postgres-server.ts and
// redis-server.ts), at saturation and at one connection. Unpinned: two workers need both
// CPUs. The figure for the shared store is fleet vs SQLite at one worker: CPU per response
// of the gateway's processes, plus that of Postgres and Redis, and latency at 1 connection.
//
// Each run that cannot happen on this checkout says why ("skipped: ..."): no `--workers`
// flag yet, a store the CLI refuses, Postgres or Redis not available. SQLite with two
// workers is listed as not run, with why (the gateway refuses it: one process owns the database).

import pg from 'pg';
import { postgresUnavailable } from '../../test/support/postgres-server.ts';
import { redisUnavailable } from '../../test/support/redis-server.ts';
import { startCliGateway, serveHasWorkers, type CliGateway } from './cli-gateway.ts';
import { perRequest, readStoreCounts, startFleetEngines, type FleetEngines } from './fleet-engines.ts';
import { latencyAtOneConnection } from './latency.ts';
import { checkTarget } from './measure.ts';
import { processTree, cpuSecondsOf } from './processes.ts';
import type { WorkersRun } from './results.ts';
import { saturate, throughputSlice, throughputStats, type ThroughputSlice } from './throughput.ts';

export interface WorkersOptions {
  upstreamOrigin: string;
  upstreamPid: number;
  /** Worker counts to run (1, 2). */
  workers: number[];
  connections: number;
  sliceSeconds: number;
  rounds: number;
  samples: number;
  log: (m: string) => void;
}

interface Planned {
  label: string;
  store: WorkersRun['store'];
  workers: number;
  gateway: CliGateway | null;
  reason: string | null;
  /** A fleet run's DATABASE_URL and REDIS_URL. */
  env: { DATABASE_URL: string; REDIS_URL: string } | null;
}

export async function workersPhase(o: WorkersOptions): Promise<{ runs: WorkersRun[]; skipped: string | null }> {
  const hasWorkers = await serveHasWorkers();
  const flag = (n: number): number | null => (hasWorkers ? n : null);
  const noFlag = 'skipped: `switchyard serve --workers` is not on this checkout';
  const plan: Planned[] = [];
  for (const n of o.workers) {
    if (n === 1) plan.push({ label: 'SQLite, --workers 1', store: 'sqlite', workers: 1, gateway: null, reason: null, env: null });
    else {
      plan.push({
        label: `SQLite, --workers ${n}`,
        store: 'sqlite',
        workers: n,
        gateway: null,
        env: null,
        reason:
          'not run: `serve --workers` refuses more than one on SQLite (one process owns the database file); more cores or machines run on Postgres + Redis (docs/deployment.md)',
      });
    }
    plan.push({
      label: `Postgres + Redis, --workers ${n}`,
      store: 'postgres+redis',
      workers: n,
      gateway: null,
      reason: n > 1 && !hasWorkers ? noFlag : null,
      env: null,
    });
  }
  let fleet: FleetEngines | null = null;
  try {
    if (plan.some((p) => p.store === 'postgres+redis' && p.reason === null)) {
      // As in the tests: redisUnavailable() installs Debian's redis-server when root and missing.
      const fleetReason = postgresUnavailable() ?? redisUnavailable();
      if (fleetReason !== null) {
        for (const p of plan) if (p.store === 'postgres+redis') p.reason ??= `skipped: ${fleetReason}`;
      } else {
        o.log('workers: starting Postgres and Redis...');
        fleet = await startFleetEngines();
      }
    }
    for (const p of plan) {
      if (p.reason !== null) continue;
      // Each fleet run on its own database, so that one's records do not slow the other.
      p.env = p.store === 'sqlite' || fleet === null ? null : { DATABASE_URL: await fleet.database(), REDIS_URL: fleet.redis.url };
      const env: Record<string, string> = p.env ?? {};
      try {
        // --workers 1 is the same as no flag; the flag is passed when it exists.
        p.gateway = await startCliGateway(p.label, `${o.upstreamOrigin}/v1`, { workers: p.workers === 1 ? flag(1) : p.workers, env });
        const bad = await checkTarget(p.gateway.target, false);
        if (bad !== null) throw new Error(bad);
        if (p.store === 'postgres+redis' && !(await wroteToPostgres(env.DATABASE_URL!))) {
          throw new Error('the gateway answered but wrote nothing to Postgres (DATABASE_URL not used by serve on this checkout)');
        }
      } catch (err) {
        p.reason = `skipped: ${(err as Error).message}`;
        await p.gateway?.stop();
        p.gateway = null;
      }
    }
    const live = plan.filter((p) => p.gateway !== null);
    if (live.length === 0) return { runs: plan.map(toSkipped), skipped: plan[0]?.reason ?? 'nothing to run' };

    o.log(
      `workers: ${live.map((p) => p.label).join('; ')}: saturation (${o.connections} connections, ${o.rounds} × ${o.sliceSeconds} s), then 1 connection (${o.samples} requests each)`,
    );
    const slices = new Map<Planned, ThroughputSlice[]>(live.map((p) => [p, []]));
    const storeCpu = new Map<Planned, number>(live.map((p) => [p, 0]));
    // Commands and statements over the slices, for the responses they completed (the other runs are idle meanwhile).
    const calls = new Map<Planned, { redis: number; postgres: number | null; responses: number }>(
      live.map((p) => [p, { redis: 0, postgres: 0, responses: 0 }]),
    );
    for (const p of live) await saturate(p.gateway!.target, false, o.connections, 1);
    for (let r = 0; r < o.rounds; r++) {
      for (const p of live) {
        const storePids = p.store === 'sqlite' || fleet === null ? [] : fleet.pids();
        const before = p.env === null ? null : await readStoreCounts(p.env.REDIS_URL, p.env.DATABASE_URL);
        const s0 = cpuSecondsOf(storePids);
        const slice = await throughputSlice(p.gateway!.target, {
          stream: false,
          connections: o.connections,
          seconds: o.sliceSeconds,
          upstreamPid: o.upstreamPid,
          serverPids: processTree(p.gateway!.target.pid),
        });
        storeCpu.set(p, storeCpu.get(p)! + cpuSecondsOf(storePids) - s0);
        slices.get(p)!.push(slice);
        if (p.env !== null && before !== null) {
          const counts = perRequest(before, await readStoreCounts(p.env.REDIS_URL, p.env.DATABASE_URL), slice.completed);
          const c = calls.get(p)!;
          c.redis += counts.redisCommands * slice.completed;
          c.postgres =
            c.postgres === null || counts.postgresStatements === null ? null : c.postgres + counts.postgresStatements * slice.completed;
          c.responses += slice.completed;
        }
      }
    }
    const one = await latencyAtOneConnection(
      live.map((p) => p.gateway!.target),
      { stream: false, samplesPerTarget: o.samples, rounds: Math.max(1, Math.min(5, Math.round(o.samples / 1000))), warmup: 200 },
    );
    return {
      runs: plan.map((p) => {
        if (p.gateway === null) return toSkipped(p);
        const s = throughputStats(slices.get(p)!);
        const l = one.get(p.label)!;
        return {
          label: p.label,
          store: p.store,
          workers: p.workers,
          result: {
            ok: true,
            value: {
              rps: s.rps,
              gatewayCpuUs: s.cpuUsPerResponseMean,
              storeCpuUs: (storeCpu.get(p)! / Math.max(1, s.completed)) * 1e6,
              ...perResponse(p.env === null ? null : calls.get(p)!),
              p50Ms: s.latency.p50,
              p99Ms: s.latency.p99,
              oneConnectionP50Ms: l.latency.p50,
              oneConnectionP99Ms: l.latency.p99,
            },
          },
        };
      }),
      skipped: null,
    };
  } finally {
    await Promise.all(plan.flatMap((p) => (p.gateway === null ? [] : [p.gateway.stop()])));
    await fleet?.stop();
  }
}

function toSkipped(p: Planned): WorkersRun {
  return { label: p.label, store: p.store, workers: p.workers, result: { ok: false, reason: p.reason ?? 'skipped' } };
}

function perResponse(c: { redis: number; postgres: number | null; responses: number } | null): {
  redisCommands: number | null;
  postgresStatements: number | null;
} {
  if (c === null || c.responses === 0) return { redisCommands: null, postgresStatements: null };
  return { redisCommands: c.redis / c.responses, postgresStatements: c.postgres === null ? null : c.postgres / c.responses };
}

async function wroteToPostgres(url: string): Promise<boolean> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const exists = await client.query<{ ok: boolean }>("SELECT to_regclass('public.generations') IS NOT NULL AS ok");
    if (exists.rows[0]?.ok !== true) return false;
    // The check request's record is written by its settlement, before its last byte.
    const rows = await client.query<{ n: string }>('SELECT count(*) AS n FROM generation_records');
    return Number(rows.rows[0]!.n) > 0;
  } finally {
    await client.end();
  }
}
