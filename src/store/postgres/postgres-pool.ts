import pg from 'pg';
import { SharedStateUnavailable } from '../../shared/shared-state-unavailable.ts';

export interface PostgresPoolOptions {
  /** `postgres://user:pass@host:port/db` (DATABASE_URL or `database.url`). */
  url: string;
  /**
   * Connections per gateway instance. Default 10: settlement batches take one for a few
   * ms each and reads are short, so 10 serve thousands of requests a second; keep
   * instances × max under the server's max_connections (100 by default) minus headroom
   * for the CLI and maintenance.
   */
  max?: number;
  /** Waiting for a free connection (or a new one) longer than this fails. Default 2000 ms. */
  connectionTimeoutMs?: number;
  /** A query running longer than this fails on the client side. Default 5000 ms. */
  queryTimeoutMs?: number;
  /** An idle connection is closed after this long. Default 30 000 ms. */
  idleTimeoutMs?: number;
  /** Errors of idle connections (Postgres restarted): expected during an outage; never the URL. */
  onError?: (err: Error) => void;
}

/**
 * The connection pool of one gateway instance. Connections that break are dropped and new
 * ones opened on demand, so the pool heals by itself when Postgres is back; meanwhile
 * `query` rejects within the timeouts above (callers fail closed: see `postgresUnavailable`).
 */
export function createPostgresPool(opts: PostgresPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 2000,
    query_timeout: opts.queryTimeoutMs ?? 5000,
    idleTimeoutMillis: opts.idleTimeoutMs ?? 30_000,
  });
  pool.on('error', (err) => opts.onError?.(err));
  // A connection that drops while a client is checked out (inside a transaction) emits
  // 'error' on that client, which the pool listens for only while the client is idle: with no
  // listener, the event would end the process. The statement in flight fails on its own
  // (callers fail closed); the event is only reported.
  pool.on('connect', (client) => {
    client.on('error', (err) => opts.onError?.(err));
  });
  return pool;
}

/** Postgres's SQLSTATE classes that mean "not reachable right now" rather than a bad query. */
const OUTAGE_CLASSES = ['08', '53', '57'];

/** Wraps a connection failure as SharedStateUnavailable; a query error (a bug, a constraint) passes through. */
export function postgresUnavailable(err: unknown): Error {
  const code = (err as { code?: unknown })?.code;
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  if (sqlState !== null && !OUTAGE_CLASSES.includes(sqlState.slice(0, 2))) return err as Error;
  const message = err instanceof Error ? err.message : String(err);
  return new SharedStateUnavailable('postgres', message, { cause: err });
}
