import { pino, type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type pinoPrettyModule from 'pino-pretty';
import { ConfigError } from '../config/config-error.ts';
import { fdStream, LogSink, REQUEST_LOG_BATCH } from './log-sink.ts';

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
  /** Where the JSON lines go (default stdout: `stdoutLogSink`, pretty when stdout is a terminal). */
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
  return pino(options, new LogSink(fdStream(1), REQUEST_LOG_BATCH));
}

/**
 * Where the JSON lines go when stdout is no terminal (a pipe, a socket, a file): a LogSink
 * (log-sink.ts), which never blocks the event loop and never keeps the process from
 * exiting, whatever the reader does — past 16 MB queued, or once the reader is gone, lines
 * are dropped and counted. Null when the log is silent or stdout is a terminal (pretty,
 * written synchronously: someone is watching it).
 */
export function stdoutLogSink(level: LogLevel): LogSink | null {
  if (level === 'silent' || process.stdout.isTTY === true) return null;
  return new LogSink(fdStream(1), REQUEST_LOG_BATCH);
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
