import { toAuditEntry, type AuditActor, type AuditEntry, type AuditRow } from '../audit-store.ts';
import type { AuditRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

const SQL = {
  insert: `INSERT INTO admin_actions (at, actor_key_hash, actor_label, actor_account_id, action, target, details)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  list: `SELECT * FROM admin_actions WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR action = $2)
    AND ($3::text IS NULL OR target = $3) ORDER BY id DESC LIMIT $4`,
};

/** audit-store.ts for Postgres. */
export class PostgresAuditRepository implements AuditRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async record(actor: AuditActor, action: string, target: string | null, details: Record<string, unknown> | null, at: string): Promise<void> {
    await this.pg.query(SQL.insert, [at, actor.keyHash, actor.label, actor.accountId, action, target, details === null ? null : JSON.stringify(details)]);
  }

  async list(filter: { action?: string; target?: string }, beforeId: number | null, limit: number): Promise<AuditEntry[]> {
    return (await this.pg.query<AuditRow>(SQL.list, [beforeId, filter.action ?? null, filter.target ?? null, limit])).rows.map(toAuditEntry);
  }
}
