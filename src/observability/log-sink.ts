import { createWriteStream, fstatSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** What a sink may hold in memory while its reader does not read; lines beyond are dropped. */
export const MAX_QUEUED_LOG_BYTES = 16 * 1024 * 1024;

/**
 * The request log's batching (issue 29): lines gathered for up to 20 ms or 64 KB go in one
 * write. One write per turn of the event loop was one write (and, to a file, one hand-off to
 * libuv's thread pool) per request at low concurrency; a line now reaches the log at most
 * 20 ms later.
 */
export const REQUEST_LOG_BATCH = { batchMs: 20, batchBytes: 64 * 1024 } as const;

export interface LogSinkOptions {
  maxQueuedBytes?: number;
  /** `coalesce` (default true): lines written in one turn of the event loop go in one write. */
  coalesce?: boolean;
  /** Gather lines for up to this many ms (one timer per batch, not per line) instead of one turn. */
  batchMs?: number;
  /** With `batchMs`: write at once when this many bytes are waiting. */
  batchBytes?: number;
}

/**
 * Where log lines go without ever blocking the process: lines are queued in memory (at most
 * `maxQueuedBytes`) and handed to a non-blocking stream, a burst in one write. Whatever
 * becomes of the reader, nothing here waits for it:
 * - a reader that lags or never reads: the queue grows to its bound, then lines are dropped;
 * - a reader that is gone (EPIPE) or any other write error: the sink is broken, the lines it
 *   held and every later one are dropped;
 * - at shutdown, `flush(ms)` gives the queue a bounded time to drain, then drops the rest.
 * Dropped lines are counted (`dropped`; `switchyard_log_lines_dropped_total` in /metrics).
 *
 * It never writes synchronously and never retries: pino's own destination (sonic-boom)
 * does both on its exit flush — a `write(1)` retried every 100 ms, forever, on EPIPE or
 * EAGAIN, which kept a gateway whose stdout reader had gone from ever exiting (issue 23).
 */
export class LogSink {
  /** Lines that could not be written (queue full, write failed, or left at shutdown). */
  dropped = 0;
  /** The first write error, when the sink broke (e.g. `EPIPE`). */
  brokenBy: string | null = null;
  private pending: string[] = [];
  private pendingBytes = 0;
  /** Lines handed to the stream and not yet acknowledged as written. */
  private inStream = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly idleWaiters = new Set<() => void>();

  private readonly out: Writable;
  private readonly opts: LogSinkOptions;

  constructor(out: Writable, opts: LogSinkOptions = {}) {
    this.out = out;
    this.opts = opts;
    // A write error is an event of this sink, never an uncaught exception of the process.
    out.on('error', (err: NodeJS.ErrnoException) => this.broke(err.code ?? err.message));
  }

  /** pino's DestinationStream: one JSON line (with its newline). */
  write(line: string): void {
    if (this.closed || this.brokenBy !== null) {
      this.dropped++;
      return;
    }
    const max = this.opts.maxQueuedBytes ?? MAX_QUEUED_LOG_BYTES;
    if (this.pendingBytes + this.out.writableLength + line.length > max) {
      this.dropped++;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    const batchMs = this.opts.batchMs;
    if (this.opts.coalesce === false) this.writePending();
    else if (batchMs === undefined) this.scheduled ??= setImmediate(this.writePendingBound);
    else if (this.pendingBytes >= (this.opts.batchBytes ?? REQUEST_LOG_BATCH.batchBytes)) this.writePending();
    else this.timer ??= setTimeout(this.writePendingBound, batchMs);
  }

  /** Lines queued and not yet written. */
  get queued(): number {
    return this.pending.length + this.inStream;
  }

  /**
   * Waits at most `ms` for every queued line to be written, then closes the sink: whatever
   * is still queued is dropped (and counted), later lines too. Never rejects.
   */
  async flush(ms: number): Promise<void> {
    this.writePending();
    if (this.queued > 0 && this.brokenBy === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.idleWaiters.add(done);
      });
    }
    this.idleWaiters.clear();
    this.closed = true;
    this.dropped += this.queued;
    this.pending = [];
    this.pendingBytes = 0;
    this.inStream = 0;
  }

  private readonly writePendingBound = (): void => this.writePending();

  private writePending(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 || this.closed || this.brokenBy !== null) return;
    const lines = this.pending.length;
    const chunk = lines === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    this.inStream += lines;
    this.out.write(chunk, (err) => {
      if (this.closed) return;
      this.inStream -= lines;
      if (err != null) {
        this.dropped += lines;
        this.broke((err as NodeJS.ErrnoException).code ?? err.message);
      }
      if (this.queued === 0) this.wakeIdle();
    });
  }

  private broke(reason: string): void {
    if (this.brokenBy !== null) return;
    this.brokenBy = reason;
    this.dropped += this.pending.length;
    this.pending = [];
    this.pendingBytes = 0;
    this.wakeIdle();
  }

  private wakeIdle(): void {
    for (const wake of [...this.idleWaiters]) wake();
    this.idleWaiters.clear();
  }
}

/**
 * A stream over file descriptor `fd` (1: stdout, 2: stderr) that never blocks the event loop:
 * a regular file is written by libuv's thread pool (a file write always completes); anything
 * else (a pipe, a socket, a character device) through the process's own stdio stream, which
 * libuv writes without blocking (a pipe that is full queues, EPIPE is an error event).
 */
export function fdStream(fd: 1 | 2): Writable {
  let isFile = false;
  try {
    isFile = fstatSync(fd).isFile();
  } catch {
    // A closed descriptor: the stdio stream reports it as an error, which breaks the sink.
  }
  if (isFile) return createWriteStream('', { fd, autoClose: false });
  return fd === 1 ? process.stdout : process.stderr;
}
