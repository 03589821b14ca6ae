import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations.ts';
import { prepareDatabaseFiles } from './prepare-database-files.ts';

/**
 * Opens (creating if needed) the SQLite database and brings its schema up to date.
 * The folder and files are created private to this user (see prepare-database-files.ts),
 * and a database this process cannot write is refused here, naming the path and cause.
 * WAL with synchronous=NORMAL: a committed transaction survives a process crash
 * (SIGKILL); only an OS crash or power loss could drop the last few.
 */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') prepareDatabaseFiles(path);
  const db = new DatabaseSync(path);
  configureConnection(db);
  migrate(db);
  return db;
}

/** The settings every connection to the database takes (the writer thread's too: sqlite-writer/). */
export function configureConnection(db: DatabaseSync): void {
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
    PRAGMA foreign_keys = ON;
    PRAGMA wal_autocheckpoint = 10000;
  `);
}

export function migrate(db: DatabaseSync): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
    }
  }
}

/**
 * Checkpoints the WAL on a timer rather than inside whichever commit crosses the
 * auto-checkpoint threshold, so no request's settlement pays for it (the p99 tail). The
 * gateway runs it in its writer thread (sqlite-writer/), off the event loop.
 * Auto-checkpoint stays on at a high threshold as a backstop. A database that refuses
 * writes refuses the checkpoint too: that is the settlements' failure to report, not this.
 */
export function startWalCheckpoints(db: DatabaseSync, everyMs = 1000): () => void {
  const checkpoint = (): void => {
    try {
      db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    } catch {
      // Retried at the next tick.
    }
  };
  const timer = setInterval(checkpoint, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs fn inside one IMMEDIATE transaction; inside another one, as a savepoint of it. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  if (db.isTransaction) {
    db.exec('SAVEPOINT nested');
    try {
      const out = fn();
      db.exec('RELEASE nested');
      return out;
    } catch (err) {
      rollBack(db, 'ROLLBACK TO nested; RELEASE nested');
      throw err;
    }
  }
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    rollBack(db, 'ROLLBACK');
    throw err;
  }
}

/**
 * Undoes a failed transaction, keeping the error that failed it: SQLite has already rolled
 * back by itself after some failures (disk full, I/O error), and a second rollback's own
 * error ("no transaction is active") must not hide the first.
 */
function rollBack(db: DatabaseSync, sql: string): void {
  if (!db.isTransaction) return;
  try {
    db.exec(sql);
  } catch {
    // The original error is what the caller needs; the transaction is gone either way.
  }
}
