// What one `npm run bench` measures, as written to bench/results/latest.json and read by
// the report (report.ts) and the table (issue-table.ts).

import type { OneConnectionStats } from './latency.ts';
import type { LoopDelay } from './loop-delay.ts';
import type { ChunkTimingStats, OpenStreamsStats } from './measure.ts';
import type { ThroughputStats } from './throughput.ts';
import type { BudgetResult } from './budget.ts';

/** A measurement, or why there is none (the target failed it, or the phase was skipped). */
export type Measured<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface ModeResults<T> {
  nonStreamed: Measured<T>;
  streamed: Measured<T>;
}

export interface TargetResults {
  /** RSS right after start-up, before any request (MB). */
  idleRssMb: number;
  /** RSS at the end of the saturation phases, under load's aftermath (MB). */
  afterLoadRssMb: number | null;
  /** RSS 10 s after the load's end, idle since (issue 29: ≤ 150 MB within 10 s; issue-table.ts AFTER_LOAD_SECONDS). */
  idleAfterLoadRssMb: number | null;
  oneConnection: ModeResults<OneConnectionStats>;
  saturation: ModeResults<ThroughputStats>;
  /** The event loop's delay over each phase (not for targets run without the probe). */
  loopDelay: { oneConnection: Measured<LoopDelay>; saturation: Measured<LoopDelay> };
}

export interface TelemetryOverhead {
  /** In process: Telemetry's calls per request, CPU µs (bench/lib/telemetry-micro.ts). */
  inProcessUs: { metrics: number; log: number; both: number };
  /** End to end: switchyard's CPU µs per non-streamed response at saturation, telemetry on and off. */
  endToEnd: Measured<{ onUs: number; offUs: number }>;
}

export interface WorkersRun {
  label: string;
  store: 'sqlite' | 'postgres+redis';
  workers: number;
  result: Measured<{
    rps: number;
    /** CPU µs per response of the gateway's processes (launcher, primary, workers). */
    gatewayCpuUs: number;
    /** CPU µs per response of Postgres and Redis (0 for SQLite: its work is the gateway's). */
    storeCpuUs: number;
    /** Per response, during the saturation slices (fleet runs only; null otherwise): Redis commands (scripts' inner calls included), Postgres statements (null without pg_stat_statements). */
    redisCommands?: number | null;
    postgresStatements?: number | null;
    p50Ms: number;
    p99Ms: number;
    /** At one connection, sequential. */
    oneConnectionP50Ms: number;
    oneConnectionP99Ms: number;
  }>;
}

export interface BenchResults {
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    pinned: { load: number; upstream: number; server: number } | null;
    date: string;
    git: string;
    loadAverageAtStart: number[];
    loadAverage: number[];
  };
  options: { quick: boolean; samples: number; rounds: number; connections: number; sliceSeconds: number; throughputRounds: number };
  /** By target name (bench/lib/targets.ts NAMES). */
  targets: Record<string, TargetResults>;
  /** The event-loop delay of an idle Node process over the same phases: the machine's own stalls. */
  idleLoopDelay: { oneConnection: Measured<LoopDelay>; saturation: Measured<LoopDelay> };
  telemetry: TelemetryOverhead | null;
  workers: { runs: WorkersRun[]; skipped: string | null };
  openStreams: Record<string, Measured<OpenStreamsStats>>;
  chunks: Record<string, Measured<ChunkTimingStats>>;
  /** The standing budget (budget.ts); null when it failed, absent in results written before it existed. */
  budget?: BudgetResult | null;
  profile?: string;
}
