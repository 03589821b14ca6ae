import { DatabaseSync } from 'node:sqlite';
import { sealAuditChain } from './audit-store.ts';
import { AUDIT_CHAIN_MIGRATION, MIGRATIONS, type Migration } from './migrations.ts';
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

/**
 * The page size of a database this gateway creates (docs/benchmarks.md, "Seventh round: the
 * writer's pages"). A settlement dirties ~16 pages, one leaf of each b-tree it touches, and
 * the WAL takes each whole: at 2,048 bytes a one-record settlement writes half the WAL bytes
 * of SQLite's default 4,096 (and the checkpointer copies half), for the same number of pages
 * and ~25 % less of the writer's CPU. A database's page size is fixed once it is in WAL mode:
 * existing databases keep theirs.
 */
export const NEW_DATABASE_PAGE_SIZE = 2048;

/**
 * The settings every connection to the database takes (the writer and checkpointer threads'
 * too: sqlite-writer/). `autoCheckpoint: false` for a serving gateway's connections: SQLite
 * would otherwise checkpoint inside whichever COMMIT leaves the WAL past 1,000 pages; the
 * gateway's checkpointer thread does it instead (sqlite-writer/checkpointer-thread.ts). The
 * CLI's short-lived connections keep SQLite's default.
 */
export function configureConnection(db: DatabaseSync, opts: { autoCheckpoint?: boolean } = {}): void {
  // A new database (no page written yet) takes NEW_DATABASE_PAGE_SIZE; one that exists keeps its own.
  if ((db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count === 0) {
    db.exec(`PRAGMA page_size = ${NEW_DATABASE_PAGE_SIZE}`);
  }
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
    PRAGMA foreign_keys = ON;
  `);
  if (opts.autoCheckpoint === false) db.exec('PRAGMA wal_autocheckpoint = 0');
}

/** `migrations`: all of them, or (tests, benchmarks) the first few, to build an older schema. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(m.sql);
      if (m.version === AUDIT_CHAIN_MIGRATION) sealAuditChain(db);
      record.run(m.version, m.name, new Date().toISOString());
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
    }
  }
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
