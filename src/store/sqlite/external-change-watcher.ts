import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Notices writes made to the database by other connections — the operator CLI, another
 * tool — through SQLite's data_version, which changes only when another connection
 * commits. The gateway checks it in its writer thread every 100 ms (sqlite-writer/), on
 * the connection that commits the settlements, so that they do not count as changes: a key
 * revoked or credits added from the CLI count within 100 ms, with nothing on the request path.
 */
export class ExternalChangeWatcher {
  private readonly stmt: StatementSync;
  private version: number;
  private readonly listeners: Array<() => void> = [];

  constructor(db: DatabaseSync) {
    this.stmt = db.prepare('PRAGMA data_version');
    this.version = this.read();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  check(): void {
    const v = this.read();
    if (v === this.version) return;
    this.version = v;
    for (const l of this.listeners) l();
  }

  private read(): number {
    return Number((this.stmt.get() as { data_version: number }).data_version);
  }
}
