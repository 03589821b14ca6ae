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
  ), named AS (
    INSERT INTO record_names (name)
    SELECT n FROM (SELECT account_id AS n FROM gone UNION SELECT key_hash FROM gone UNION SELECT 'interrupted' FROM gone) v ORDER BY n
    ON CONFLICT (name) DO NOTHING RETURNING id, name
  ), names AS (
    SELECT id, name FROM named
    UNION ALL SELECT id, name FROM record_names
    WHERE name IN (SELECT account_id FROM gone UNION SELECT key_hash FROM gone UNION SELECT 'interrupted')
  ), recorded AS (
    INSERT INTO generation_records (id, created_ms, account_ref, key_ref, streamed, cancelled, cache_hit, is_error, error_code_ref,
        tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos)
    SELECT g.id, $2, (SELECT min(id) FROM names WHERE name = g.account_id), (SELECT min(id) FROM names WHERE name = g.key_hash),
      0, 1, 0, 1, (SELECT min(id) FROM names WHERE name = 'interrupted'), 0, 0, 0, 0, 0, 0
    FROM gone g
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
    return Number((await pool.query<{ n: string }>(RELEASE_STALE, [beforeIso, Date.parse(nowIso)])).rows[0]!.n);
  } catch (err) {
    throw postgresUnavailable(err);
  }
}
