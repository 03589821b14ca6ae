import { createClient, ErrorReply } from 'redis';
import { SharedStateUnavailable } from '../shared-state-unavailable.ts';

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisConnectionOptions {
  url: string;
  /** Give up connecting (and each reconnect attempt) after this long. Default 1000 ms. */
  connectTimeoutMs?: number;
  /** A command without a reply after this long fails (the caller fails closed). Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Longest pause between reconnect attempts. Default 1000 ms. */
  maxReconnectDelayMs?: number;
  /** Where connection errors go (they are expected while Redis is down). Never logs the URL's password. */
  onError?: (err: Error) => void;
}

/**
 * One Redis connection that fails fast and heals by itself: no offline queue (a command
 * while disconnected rejects at once instead of waiting), a timeout on every command, and
 * endless reconnects in the background with a capped backoff. Every failure to reach Redis
 * surfaces as SharedStateUnavailable; Redis's own error replies (a script bug) stay as they are.
 * node-redis pipelines the commands of all callers over the one socket, so one connection per
 * process serves the limiter and the holds; pub/sub needs a second one (`subscriber`).
 */
export class RedisConnection {
  readonly client: RedisClient;
  private readonly opts: RedisConnectionOptions;
  private readonly commandTimeoutMs: number;

  constructor(opts: RedisConnectionOptions) {
    this.opts = opts;
    const maxDelay = opts.maxReconnectDelayMs ?? 1000;
    this.commandTimeoutMs = opts.commandTimeoutMs ?? 1000;
    this.client = createClient({
      url: opts.url,
      disableOfflineQueue: true,
      // No per-command AbortSignal.timeout (node-redis arms one per command, 5 s by default):
      // `send` bounds the wait with its own timer (see there).
      commandOptions: { timeout: 0 },
      socket: {
        connectTimeout: opts.connectTimeoutMs ?? 1000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
      },
    });
    const onError = opts.onError ?? (() => {});
    this.client.on('error', (err: Error) => onError(err));
  }

  /**
   * Starts connecting and waits for the first connection up to the connect timeout; when
   * Redis is not there yet, returns anyway (calls fail with SharedStateUnavailable until it is).
   */
  async connect(): Promise<void> {
    const ready = this.client.connect().then(
      () => true,
      () => false,
    );
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), this.opts.connectTimeoutMs ?? 1000).unref());
    await Promise.race([ready, timeout]);
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  /**
   * Sends one command; rejects with SharedStateUnavailable when Redis cannot answer within
   * the command timeout. The wait is bounded here, by one timer, and not by node-redis's
   * `timeout` option (turned off in the constructor): that one costs an AbortSignal.timeout
   * per command whose timer fires later whether or not the reply came (an Event and a
   * DOMException each: about a twentieth of a fleet instance's CPU per request, measured), and covers only a command
   * still waiting to be written. A command given up on here may still be written and run
   * later, exactly as one written whose reply comes late: its reply is read and dropped, and
   * what it did is covered as for a late reply (a hold expires and is reconciled).
   */
  async send<T>(args: readonly string[]): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      // Given up on after this turn's I/O is read (setImmediate runs after the poll phase): a
      // reply that arrived while the event loop was busy past the timeout (a long GC, a
      // starved CPU) is not an outage.
      timer = setTimeout(
        () => setImmediate(reject, new SharedStateUnavailable('redis', `no reply within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
    });
    try {
      return await Promise.race([this.client.sendCommand<T>(args), timedOut]);
    } catch (err) {
      throw unavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A second connection with the same settings (pub/sub takes a connection for itself). */
  duplicate(): RedisConnection {
    return new RedisConnection(this.opts);
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
  }
}

/** A Redis error reply passes through (it is a bug, not an outage); anything else is an outage. */
export function unavailable(err: unknown): Error {
  if (err instanceof ErrorReply || err instanceof SharedStateUnavailable) return err;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new SharedStateUnavailable('redis', message, { cause: err });
}
