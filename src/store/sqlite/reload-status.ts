import type { DatabaseSync } from 'node:sqlite';
import type { ReloadStatus } from '../reload-status-record.ts';

/**
 * The outcome of the serving gateway's last configuration reload, in the database it
 * serves, so that `switchyard reload` (another process, maybe without the gateway's
 * address) can tell whether the config it asked for was accepted. One row: `attempt`
 * counts reload attempts since start; the CLI reads it, signals, and waits for it to move.
 */

const CREATE = `CREATE TABLE IF NOT EXISTS serve_reload (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  pid         INTEGER NOT NULL,
  attempt     INTEGER NOT NULL,
  generation  INTEGER NOT NULL,
  ok          INTEGER NOT NULL,
  error       TEXT,
  at          TEXT NOT NULL
)`;

interface Row {
  pid: number;
  attempt: number;
  generation: number;
  ok: number;
  error: string | null;
  at: string;
}

/** Writes the row (best effort: a database refusing writes loses only this report). */
export function writeReloadStatus(db: DatabaseSync, status: ReloadStatus): boolean {
  try {
    db.exec(CREATE);
    db.prepare(
      `INSERT INTO serve_reload (id, pid, attempt, generation, ok, error, at) VALUES (1, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, attempt = excluded.attempt, generation = excluded.generation,
         ok = excluded.ok, error = excluded.error, at = excluded.at`,
    ).run(status.pid, status.attempt, status.generation, status.ok ? 1 : 0, status.error, status.at);
    return true;
  } catch {
    return false;
  }
}

/** The row, or null when no gateway wrote one (or the table is not there yet). */
export function readReloadStatus(db: DatabaseSync): ReloadStatus | null {
  let row: Row | undefined;
  try {
    row = db.prepare('SELECT pid, attempt, generation, ok, error, at FROM serve_reload WHERE id = 1').get() as Row | undefined;
  } catch {
    return null;
  }
  if (row === undefined) return null;
  return { pid: row.pid, attempt: row.attempt, generation: row.generation, ok: row.ok === 1, error: row.error, at: row.at };
}
