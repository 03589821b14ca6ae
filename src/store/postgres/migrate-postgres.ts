import type pg from 'pg';
import { AUDIT_CHAIN_MIGRATION, type Migration } from '../sqlite/migrations.ts';
import { sealPostgresAuditChain } from './postgres-audit-repository.ts';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.ts';

/** The advisory lock every instance takes to migrate: one at a time, the others wait and then find nothing to do. */
const MIGRATION_LOCK = 0x5357_4d47; // 'SWMG'

/**
 * Brings the schema up to date; safe when several instances start at once: a session
 * advisory lock serializes the runners, each migration runs in its own transaction, and
 * one already recorded in schema_migrations is skipped. Returns the versions this call applied.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          if (m.version === AUDIT_CHAIN_MIGRATION) await sealPostgresAuditChain(client);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}
