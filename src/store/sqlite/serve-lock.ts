import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DatabaseSync } from 'node:sqlite';
import type { LeaseRenewal, LeaseTerms } from './sqlite-writer/writer-protocol.ts';

/**
 * One gateway process per database. Credit holds are kept in the serving process's
 * memory (billing/credit-reservations.ts), so two gateways on one SQLite file could
 * together hold more than a balance; this lock refuses the second.
 *
 * The lock is a lease row inside the database itself, so every path to the file (a
 * symlink, a bind mount, another PID namespace where both gateways are pid 1) meets the
 * same row; a lock beside the file keyed on its path and a pid could not see through
 * those. The holder is a random token, not a pid. The lease is taken in a BEGIN IMMEDIATE
 * transaction (SQLite's own write lock serialises two starters), renewed by a heartbeat
 * well within its TTL, and deleted on clean shutdown. A lease nobody renewed past its
 * expiry was left by a process that died (SIGKILL, power loss) and is taken over.
 * Operator CLI commands do not take it: they may run beside the gateway.
 */

export const LEASE_TTL_MS = 5_000;
export const LEASE_RENEW_MS = 1_000;

export interface LeaseHolder {
  pid: number;
  host: string;
  acquiredAt: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Another process holds a live lease on this database. */
export class ServeLeaseHeld extends Error {
  readonly holder: LeaseHolder;

  constructor(databasePath: string, holder: LeaseHolder) {
    super(
      `another switchyard gateway (pid ${holder.pid} on ${holder.host}, since ${holder.acquiredAt}) is serving ` +
        `${databasePath}; one gateway process per database`,
    );
    this.holder = holder;
  }
}

export interface LeaseOptions {
  ttlMs?: number;
  renewMs?: number;
  now?: () => number;
  /** Called once if the lease is lost (another process took it over): stop serving. */
  onLost?: (reason: string) => void;
}

const CREATE = `CREATE TABLE IF NOT EXISTS serve_lease (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  holder      TEXT NOT NULL,
  pid         INTEGER NOT NULL,
  host        TEXT NOT NULL,
  acquired_at TEXT NOT NULL,
  expires_at  INTEGER NOT NULL
)`;

interface LeaseRow {
  holder: string;
  pid: number;
  host: string;
  acquired_at: string;
  expires_at: number;
}

export class ServeLock {
  private readonly db: DatabaseSync | null;
  private readonly token: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly onLost: (reason: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private expiresAt = 0;
  private lost = false;
  private writeError: string | null = null;

  private constructor(db: DatabaseSync | null, token: string, opts: LeaseOptions) {
    this.db = db;
    this.token = token;
    this.ttlMs = opts.ttlMs ?? LEASE_TTL_MS;
    this.now = opts.now ?? Date.now;
    this.onLost = opts.onLost ?? (() => {});
  }

  /**
   * Takes the lease on the database `db` is open on, or throws ServeLeaseHeld when
   * another holder's lease has not expired. Any other error (a database this process
   * cannot write, say) propagates.
   */
  static acquire(db: DatabaseSync, databasePath: string, opts: LeaseOptions = {}): ServeLock {
    if (databasePath === ':memory:') return new ServeLock(null, '', opts);
    const lock = new ServeLock(db, randomUUID(), opts);
    const now = lock.now();
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(CREATE);
      const row = db.prepare('SELECT holder, pid, host, acquired_at, expires_at FROM serve_lease WHERE id = 1').get() as
        LeaseRow | undefined;
      if (row !== undefined && row.expires_at > now) {
        throw new ServeLeaseHeld(databasePath, { pid: row.pid, host: row.host, acquiredAt: row.acquired_at, expiresAt: row.expires_at });
      }
      lock.expiresAt = now + lock.ttlMs;
      db.prepare(
        `INSERT INTO serve_lease (id, holder, pid, host, acquired_at, expires_at) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
           acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
      ).run(lock.token, process.pid, hostname(), new Date(now).toISOString(), lock.expiresAt);
      db.exec('COMMIT');
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      if (err instanceof ServeLeaseHeld) throw err;
      // Taking the lease is the gateway's first write: a database it cannot write ends here.
      throw new Error(`cannot write the database ${databasePath}: ${(err as Error).message}`, { cause: err });
    }
    lock.timer = setInterval(() => lock.renew(), opts.renewMs ?? LEASE_RENEW_MS);
    lock.timer.unref();
    return lock;
  }

  /**
   * Pushes the expiry forward on this lock's own connection (the gateway hands the
   * heartbeat to its writer thread instead: `handOver`). Lost when the row names another holder.
   */
  renew(): void {
    if (this.db === null || this.lost) return;
    this.renewed(renewLease(this.db, this.token, this.ttlMs, this.now()));
  }

  /**
   * Stops this lock's heartbeat and returns what another connection needs to renew the
   * lease in its place (the writer thread: sqlite-writer/), which then reports each
   * renewal through `renewed`. Null for an in-memory database (no lease).
   */
  handOver(renewMs = LEASE_RENEW_MS): LeaseTerms | null {
    this.stopTimer();
    if (this.db === null || this.lost) return null;
    return { token: this.token, ttlMs: this.ttlMs, renewMs };
  }

  /** The outcome of a renewal, made here or by the connection the heartbeat was handed to. */
  renewed(renewal: LeaseRenewal): void {
    if (this.lost) return;
    if ('error' in renewal) {
      this.writeError = renewal.error;
      // The database refuses writes (read-only, full, I/O error). The gateway keeps running,
      // failing closed: its settlements fail the same way, so it delivers no paid answer
      // (settlement-queue.ts), and it recovers by itself once writes succeed. If another
      // gateway took the lease meanwhile, the next successful renewal finds its row and stops.
      return;
    }
    this.writeError = null;
    if (renewal.changes === 1) {
      this.expiresAt = renewal.expiresAt;
      return;
    }
    this.loseLease('another process took over the serve lease of this database');
  }

  /** Why the last renewal could not write the database (renewed every second), or null when it could. */
  get lastWriteError(): string | null {
    return this.writeError;
  }

  /** True while this process holds the lease (as far as it knows). */
  get held(): boolean {
    return !this.lost;
  }

  private loseLease(reason: string): void {
    this.lost = true;
    this.stopTimer();
    this.onLost(reason);
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Clean shutdown: the next gateway may start at once. Call before closing the database. */
  release(): void {
    this.stopTimer();
    if (this.db === null || this.lost) return;
    this.lost = true;
    try {
      this.db.prepare('DELETE FROM serve_lease WHERE id = 1 AND holder = ?').run(this.token);
    } catch {
      // The database went away first: the lease expires by itself.
    }
  }
}

/**
 * One renewal: pushes the expiry of the lease held under `token` to `now + ttlMs`. One
 * statement, no explicit transaction, so that it also works while a settlement batch has
 * one open on the same connection.
 */
export function renewLease(db: DatabaseSync, token: string, ttlMs: number, now: number): LeaseRenewal {
  const expiresAt = now + ttlMs;
  try {
    const r = db.prepare('UPDATE serve_lease SET expires_at = ? WHERE id = 1 AND holder = ?').run(expiresAt, token);
    return { changes: Number(r.changes), expiresAt };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The lease row as it stands (expired or not), or null: what `switchyard reload` finds the gateway by. */
export function readLeaseHolder(db: DatabaseSync): LeaseHolder | null {
  let row: LeaseRow | undefined;
  try {
    row = db.prepare('SELECT holder, pid, host, acquired_at, expires_at FROM serve_lease WHERE id = 1').get() as LeaseRow | undefined;
  } catch {
    return null; // no table: no gateway ever served this database
  }
  return row === undefined ? null : { pid: row.pid, host: row.host, acquiredAt: row.acquired_at, expiresAt: row.expires_at };
}
