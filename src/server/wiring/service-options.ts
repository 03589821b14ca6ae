import type { DestinationStream } from 'pino';
import type { GatewayConfig } from '../../config/types.ts';
import type { LogSink } from '../../observability/log-sink.ts';
import type { SqliteWriterOptions } from '../open-stores.ts';
import type { FleetServices } from '../fleet-services.ts';
import type { ReloadResult } from './in-force.ts';

/** What the caller of createServices (serve, the tests) decides: the environment, the logs, the clock, the fleet's Redis pieces. */
export interface ServiceOptions {
  env: Record<string, string | undefined>;
  log?: (message: string) => void;
  /** How often stale credit holds are swept (default: the hold grace period). */
  holdSweepMs?: number;
  /** The uniform source of routing's weighted draw (default Math.random); tests seed it. */
  random?: () => number;
  /** The serve lease of the database was lost (store/serve-lock.ts): this process must stop serving. */
  onLeaseLost?: (reason: string) => void;
  /** Where the request log's JSON lines go (default stdout; tests capture them). */
  logDestination?: DestinationStream;
  /** Where `log` writes (serve: stderr), for its count of dropped lines in /metrics. */
  operatorLogSink?: LogSink;
  /** The clock of requests, credit holds and key limit periods (default Date.now); tests inject one to cross a period. */
  now?: () => number;
  /**
   * A fleet instance's Redis pieces (fleet-services.ts: holds, rate limits, invalidation),
   * built and connected by the caller; closed with the services. Absent: everything in process.
   */
  fleet?: FleetServices;
  /** The writer thread's timings (store/sqlite/sqlite-writer/sqlite-writer.ts). */
  writer?: Omit<SqliteWriterOptions, 'log'>;
  /** How the operator runs `switchyard` against this database (default: from `env` and the current folder; runtime/cli-invocation.ts). */
  cliInvocation?: string;
  /**
   * Reads the configuration again as the gateway was started (serve: the file and the
   * command line's --host/--port), for a reload asked over HTTP (POST /admin/config/reload).
   * Absent: the file the config came from, when it came from one.
   */
  loadConfigAgain?: () => GatewayConfig;
  /** Told the outcome of each reload asked over HTTP (serve logs it; a worker's accepted one makes the other workers reload too). */
  onHttpReload?: (result: ReloadResult) => void;
}

/** The operator log (scrubbed by the generation in force). */
export type Log = (message: string) => void;
