import type pg from 'pg';
import type { PruneCutoff, PruneStep } from '../record-pruning.ts';
import { postgresUnavailable } from './postgres-pool.ts';

// record-pruner.ts for Postgres: the same steps, each account's batch one statement (its own
// transaction). Not partitions dropped by month: see compact-records-migration.ts. Two
// instances pruning at once only repeat each other's work (a row is deleted once).

const DELETE_OLDEST = `DELETE FROM generation_records WHERE seq IN (
    SELECT seq FROM generation_records WHERE account_ref = (SELECT id FROM record_names WHERE name = $1) AND created_ms < $2
    ORDER BY created_ms LIMIT $3)`;

export async function pruneStepPostgres(pool: pg.Pool, cutoffs: readonly PruneCutoff[], start: number, limit: number): Promise<PruneStep> {
  let deleted = 0;
  let next = start;
  const t0 = performance.now();
  try {
    while (next < cutoffs.length && deleted < limit) {
      const c = cutoffs[next]!;
      const want = limit - deleted;
      const n = (await pool.query(DELETE_OLDEST, [c.accountId, c.beforeMs, want])).rowCount ?? 0;
      deleted += n;
      if (n < want) next++;
    }
  } catch (err) {
    throw postgresUnavailable(err);
  }
  return { deleted, next, ms: performance.now() - t0 };
}
