import type pg from 'pg';
import type { Stores } from '../store-contract.ts';
import { SqlWebhookRepository, type SqlRunner } from '../webhook-store.ts';
import { SqlMcpCallRepository, SqlMcpServerRepository } from '../mcp-store.ts';
import { SqlMemberRepository } from '../member-store.ts';
import { SqlByokRepository } from '../byok-store.ts';
import { SqlBudgetAlertRepository } from '../budget-alert-store.ts';
import { SqlGovernancePruner } from '../governance-prune-store.ts';
import { SqlSsoRepository } from '../sso-store.ts';
import { PgExecutor } from './pg-executor.ts';
import { PostgresAccountRepository } from './postgres-account-repository.ts';
import { PostgresActivityRepository } from './postgres-activity-repository.ts';
import { PostgresAdminRepository } from './postgres-admin-repository.ts';
import { PostgresAuditRepository } from './postgres-audit-repository.ts';
import { PostgresGenerationRepository } from './postgres-generation-repository.ts';
import { PostgresKeyUsageRepository } from './postgres-key-usage-repository.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { PostgresLedgerRepository } from './postgres-ledger-repository.ts';
import { migratePostgres } from './migrate-postgres.ts';
import { createPostgresPool, type PostgresPoolOptions } from './postgres-pool.ts';
import { PostgresRefusalRepository } from './postgres-refusal-counts.ts';
import { PostgresReloadStatus } from './postgres-reload-status.ts';
import { PostgresSessionRepository } from './postgres-session-repository.ts';
import { releaseStaleHolds } from './postgres-stale-holds.ts';
import { PostgresUsageRepository } from './postgres-usage-repository.ts';

/** The Postgres stores, plus the pool and the settlement ledger (the settlement queue and the Redis holds' loader use it). */
export interface PostgresStores extends Stores {
  readonly engine: 'postgres';
  readonly pool: pg.Pool;
  readonly settlements: PostgresLedger;
}

/**
 * The store contract over Postgres: opens a pool on `databaseUrl`, brings the schema up to
 * date (migrate-postgres.ts: several instances starting at once take turns), and builds
 * the repositories (one file each in this folder). `close` ends the pool.
 */
export async function openPostgresStores(databaseUrl: string, opts: Omit<PostgresPoolOptions, 'url'> = {}): Promise<PostgresStores> {
  const pool = createPostgresPool({ ...opts, url: databaseUrl });
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return postgresStoresOn(pool);
}

/** The repositories over an open, migrated pool. */
export function postgresStoresOn(pool: pg.Pool): PostgresStores {
  const settlements = new PostgresLedger(pool);
  const on = (exec: PgExecutor): PostgresStores => {
    const stores: PostgresStores = {
      engine: 'postgres',
      pool,
      settlements,
      accounts: new PostgresAccountRepository(exec),
      ledger: new PostgresLedgerRepository(exec, settlements),
      generations: new PostgresGenerationRepository(exec),
      activity: new PostgresActivityRepository(exec),
      usage: new PostgresUsageRepository(exec),
      keyUsage: new PostgresKeyUsageRepository(exec),
      admin: new PostgresAdminRepository(exec),
      audit: new PostgresAuditRepository(exec),
      refusals: new PostgresRefusalRepository(exec),
      sessions: new PostgresSessionRepository(exec),
      reloadStatus: new PostgresReloadStatus(exec),
      webhooks: new SqlWebhookRepository(pgRunner(exec)),
      mcpServers: new SqlMcpServerRepository(pgRunner(exec)),
      mcpCalls: new SqlMcpCallRepository(pgRunner(exec)),
      members: new SqlMemberRepository(pgRunner(exec)),
      byok: new SqlByokRepository(pgRunner(exec)),
      budgetAlerts: new SqlBudgetAlertRepository(pgRunner(exec)),
      holds: {
        loadSpendState: (keyHash, ids, days) => settlements.spendState(keyHash, ids, days),
        releaseStale: (before, now) => releaseStaleHolds(pool, before, now),
      },
      inProcessHolds: null,
      governancePruner: new SqlGovernancePruner(pgRunner(exec)),
      sso: new SqlSsoRepository(pgRunner(exec)),
      // Outside a transaction: a new one on a client of the pool; inside: the same one.
      transaction: (fn) => exec.atomically((tx) => fn(tx === exec ? stores : on(tx))),
      // A transaction-scoped advisory lock: released by its commit or rollback.
      exclusive: (lock, fn) =>
        exec.atomically(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`switchyard:${lock}`]);
          return fn(tx === exec ? stores : on(tx));
        }),
      async close() {
        await pool.end();
      },
    };
    return stores;
  };
  return on(PgExecutor.ofPool(pool));
}

/** webhook-store.ts's SQL on Postgres: its `?` parameters numbered. */
function pgRunner(exec: PgExecutor): SqlRunner {
  const numbered = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    all: async (sql, params) => (await exec.query<Record<string, unknown>>(numbered(sql), params)).rows,
    run: async (sql, params) => (await exec.query(numbered(sql), params)).rowCount,
  };
}
