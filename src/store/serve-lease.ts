import type { ReloadStatus } from './reload-status-record.ts';
import { openDatabase } from './sqlite/open-database.ts';
import { readReloadStatus } from './sqlite/reload-status.ts';
import { readLeaseHolder, type LeaseHolder } from './sqlite/serve-lock.ts';

// The serve lease of a SQLite database (one gateway process per file: sqlite/serve-lock.ts),
// as the CLI sees it: the error a second gateway meets, the lease's TTL, and a reader of
// who serves a file and what it last reported of a reload. A fleet on Postgres has no lease.

export { LEASE_TTL_MS, ServeLeaseHeld, type LeaseHolder } from './sqlite/serve-lock.ts';

/** The lease row and the last reload's report of one database file, read on a connection of its own. */
export interface ServeLeaseReader {
  holder(): LeaseHolder | null;
  reloadStatus(): ReloadStatus | null;
  close(): void;
}

/** Opens (and migrates) the database at `path` to read its lease; close it after. */
export function openServeLeaseReader(path: string): ServeLeaseReader {
  const db = openDatabase(path);
  return { holder: () => readLeaseHolder(db), reloadStatus: () => readReloadStatus(db), close: () => db.close() };
}
