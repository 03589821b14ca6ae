import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { PruneCutoff, PruneStep } from '../record-pruning.ts';

// Deleting generation records past their retention (the job: server/records-retention.ts),
// one short transaction at a time: at most `limit` rows of the accounts `cutoffs` lists,
// from `start` on, oldest first, each account's through its (account_ref, created_ms)
// index. On SQLite it runs on the writer thread (sqlite-writer/), between settlement batches.

const DELETE_OLDEST = `DELETE FROM generation_records WHERE seq IN (
    SELECT seq FROM generation_records WHERE account_ref = (SELECT id FROM record_names WHERE name = ?) AND created_ms < ?
    ORDER BY created_ms LIMIT ?)`;

const statements = new WeakMap<DatabaseSync, StatementSync>();

/** One step, in one IMMEDIATE transaction of its own. */
export function pruneStep(db: DatabaseSync, cutoffs: readonly PruneCutoff[], start: number, limit: number): PruneStep {
  let stmt = statements.get(db);
  if (stmt === undefined) {
    stmt = db.prepare(DELETE_OLDEST);
    statements.set(db, stmt);
  }
  let deleted = 0;
  let next = start;
  db.exec('BEGIN IMMEDIATE');
  const t0 = performance.now(); // from holding the write lock (the wait for it is not holding it)
  try {
    while (next < cutoffs.length && deleted < limit) {
      const c = cutoffs[next]!;
      const want = limit - deleted;
      const n = Number(stmt.run(c.accountId, c.beforeMs, want).changes);
      deleted += n;
      if (n < want) next++; // this account has nothing older left
    }
    db.exec('COMMIT');
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
  return { deleted, next, ms: performance.now() - t0 };
}
