import type pg from 'pg';
import { postgresUnavailable } from './postgres-pool.ts';

// The fleet's stale-hold sweep over Postgres: what ReservationStore.releaseStale does for
// SQLite, for hold rows that any instance may have written and any instance may sweep.

/** At most this many rows per sweep (the next sweep takes the rest). */
const BATCH = 500;

// One statement (its own transaction): the expired rows are taken with SKIP LOCKED, so two
// instances sweeping at once never take the same one, and a row a settlement is removing
// (locked by its transaction) is left to it. Each taken row leaves an `interrupted` record,
// nothing charged; a request already recorded keeps its record. A settlement written
// later replaces the `interrupted` record (postgres-settlement.ts).
const RELEASE_STALE = `WITH gone AS (
    DELETE FROM reservations WHERE id IN (
      SELECT id FROM reservations WHERE expires_at < $1 ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED
    ) RETURNING id, account_id, key_hash
  ), recorded AS (
    INSERT INTO generations (id, account_id, key_hash, endpoint_dialect, streamed, cancelled, status, error_code, created_at)
    SELECT id, account_id, key_hash, '', 0, 1, 'error', 'interrupted', $2 FROM gone
    ON CONFLICT (id) DO NOTHING
  )
  SELECT count(*) AS n FROM gone`;

/**
 * Removes the hold rows that expired before `beforeIso` (their process died mid-request)
 * and records each request as `interrupted` at `nowIso`. Returns how many rows were removed.
 * Rejects with SharedStateUnavailable when Postgres cannot be reached.
 */
export async function releaseStaleHolds(pool: pg.Pool, beforeIso: string, nowIso: string): Promise<number> {
  try {
    return Number((await pool.query<{ n: string }>(RELEASE_STALE, [beforeIso, nowIso])).rows[0]!.n);
  } catch (err) {
    throw postgresUnavailable(err);
  }
}
