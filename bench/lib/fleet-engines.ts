// A fleet's engines for the benchmarks: Postgres and Redis started with the tests' harness
// (test/support/postgres-server.ts, redis-server.ts), their processes (for their CPU), and
// what they were asked per request: Redis commands (INFO commandstats) and Postgres
// statements (pg_stat_statements, BEGIN and COMMIT included), read before and after a
// load and divided by the responses it completed.

import pg from 'pg';
import { createClient } from 'redis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, preloadStatementStats, stopPostgres } from '../../test/support/postgres-server.ts';
import { startRedis, type RedisServer } from '../../test/support/redis-server.ts';
import { processTree } from './processes.ts';

export interface FleetEngines {
  redis: RedisServer;
  /** Postgres's and Redis's processes, for their CPU. */
  pids(): number[];
  /** Postgres's processes alone (the server and its backends). */
  postgresPids(): number[];
  /** A new database on the server (each run on its own). */
  database(): Promise<string>;
  stop(): Promise<void>;
}

export async function startFleetEngines(): Promise<FleetEngines> {
  preloadStatementStats();
  const redis = await startRedis();
  const first = await createTestDatabase();
  const client = new pg.Client(first);
  await client.connect();
  let dataDir: string;
  try {
    dataDir = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  } finally {
    await client.end();
  }
  const r = createClient({ url: redis.url });
  await r.connect();
  const info = await r.info('server');
  await r.quit();
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? NaN);
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    redis,
    pids: () => [...processTree(postmaster), ...(Number.isFinite(redisPid) ? [redisPid] : [])],
    postgresPids: () => processTree(postmaster),
    database: createTestDatabase,
    async stop() {
      await redis.stop();
      await stopPostgres();
    },
  };
}

/** Calls per command (Redis) or per statement text (Postgres). */
export type Calls = Map<string, number>;

export interface StoreCounts {
  redis: Calls;
  /** Null when pg_stat_statements is not loaded (Debian's Postgres without contrib). */
  postgres: Calls | null;
}

/** Reads the counters of one Redis server and one database. */
export async function readStoreCounts(redisUrl: string, databaseUrl: string): Promise<StoreCounts> {
  const r = createClient({ url: redisUrl });
  await r.connect();
  let stats: string;
  try {
    stats = await r.info('commandstats');
  } finally {
    await r.quit();
  }
  const redis: Calls = new Map();
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) redis.set(m[1]!, Number(m[2]));
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const rows = await client.query<{ query: string; calls: string }>(
      'SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    return { redis, postgres: new Map(rows.rows.map((x) => [x.query, Number(x.calls)])) };
  } catch {
    return { redis, postgres: null };
  } finally {
    await client.end();
  }
}

export interface PerRequest {
  redisCommands: number;
  postgresStatements: number | null;
  /** Each command or statement with more than 0.01 per request, most first. */
  detail: Array<{ store: 'redis' | 'postgres'; what: string; perRequest: number }>;
}

/** What `after - before` amounts to per completed response. The counters' own reads are left out. */
export function perRequest(before: StoreCounts, after: StoreCounts, responses: number): PerRequest {
  const diff = (a: Calls, b: Calls): Calls => {
    const out: Calls = new Map();
    for (const [k, v] of a) if (v - (b.get(k) ?? 0) > 0) out.set(k, v - (b.get(k) ?? 0));
    return out;
  };
  const redis = diff(after.redis, before.redis);
  redis.delete('info');
  const postgres = after.postgres === null || before.postgres === null ? null : diff(after.postgres, before.postgres);
  if (postgres !== null) for (const k of [...postgres.keys()]) if (/pg_stat_statements|pg_database/.test(k)) postgres.delete(k);
  const n = Math.max(1, responses);
  const sum = (c: Calls): number => [...c.values()].reduce((a, b) => a + b, 0);
  const detail: PerRequest['detail'] = [
    ...[...redis].map(([what, v]) => ({ store: 'redis' as const, what, perRequest: v / n })),
    ...[...(postgres ?? [])].map(([what, v]) => ({
      store: 'postgres' as const,
      what: what.replace(/\s+/g, ' ').slice(0, 100),
      perRequest: v / n,
    })),
  ]
    .filter((d) => d.perRequest > 0.01)
    .sort((a, b) => b.perRequest - a.perRequest);
  return { redisCommands: sum(redis) / n, postgresStatements: postgres === null ? null : sum(postgres) / n, detail };
}
