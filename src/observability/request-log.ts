import { pino, type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type pinoPrettyModule from 'pino-pretty';
import { ConfigError } from '../config/config-error.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Header and field paths whose values never reach a log line, whatever carries them. */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers.cookie',
  'apiKey',
  'api_key',
];

export interface RequestLogOptions {
  /** `LOG_LEVEL` (default info). */
  level?: LogLevel;
  /** Where the JSON lines go (default stdout, pretty when stdout is a terminal). */
  destination?: DestinationStream;
}

/**
 * The structured log: JSON lines on stdout (one per request at info, upstream trouble at
 * warn/error), written without blocking the event loop, readable when stdout is a terminal. Whatever text came from a client or an
 * upstream is scrubbed by the caller (Telemetry) before it is logged; `redact` blanks
 * credential-carrying fields besides.
 */
export function createRequestLogger(opts: RequestLogOptions = {}): Logger {
  const options = {
    level: opts.level ?? 'info',
    base: null,
    messageKey: 'msg',
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
  };
  if (options.level === 'silent') return pino(options, { write: () => {} });
  if (opts.destination !== undefined) return pino(options, opts.destination);
  if (process.stdout.isTTY === true) return pino(options, loadPinoPretty()({ colorize: true, sync: true, destination: 1 }));
  return pino(options, logDestination(1));
}

/** What the log may hold in memory while stdout does not drain; lines beyond are dropped. */
export const MAX_QUEUED_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Where the JSON lines go when not to a terminal: `dest` (a file descriptor or path) written
 * asynchronously. sonic-boom hands each write to libuv's pool and lines queued meanwhile go
 * in the next one, so a slow stdout — a pipe whose reader lags, a full disk — never blocks
 * the event loop, and a burst of requests costs one write, not one per line. pino flushes
 * what is queued when the process exits; a SIGKILL may lose the last lines (the ledger and
 * the generation records, not the log, are the durable account of requests).
 */
export function logDestination(dest: number | string): DestinationStream {
  // A stdout that never drains must not grow the queue without end: past 16 MB, lines are dropped.
  return pino.destination({ dest, sync: false, maxLength: MAX_QUEUED_LOG_BYTES });
}

/** `LOG_LEVEL` read from the environment, refused when it names no level. */
export function logLevelFromEnv(env: Record<string, string | undefined>): LogLevel {
  const value = env.LOG_LEVEL?.trim().toLowerCase();
  if (value === undefined || value === '') return 'info';
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new ConfigError('env LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
}

// pino-pretty (~10 MB of RSS) is only for a terminal: loaded then, never for a service
// whose stdout is a pipe or a file.
const require = createRequire(import.meta.url);

function loadPinoPretty(): typeof pinoPrettyModule {
  return require('pino-pretty') as typeof pinoPrettyModule;
}
