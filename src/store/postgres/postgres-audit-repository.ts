import type pg from 'pg';
import { checkChain, entryHash, GENESIS_HASH, toChainFields, type ChainBreak, type ChainRow } from '../audit-chain.ts';
import { toAuditEntry, type AuditActor, type AuditEntry, type AuditRow } from '../audit-records.ts';
import type { AuditRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';

/** The transaction-level advisory lock that serializes audit writes, so the hash chain stays one line. */
const AUDIT_LOCK = 0x5357_4144; // 'SWAD'

const SQL = {
  lock: 'SELECT pg_advisory_xact_lock($1)',
  last: 'SELECT entry_hash FROM admin_actions ORDER BY id DESC LIMIT 1',
  insert: `INSERT INTO admin_actions (at, actor_key_hash, actor_label, actor_account_id, action, target, details)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
  seal: 'UPDATE admin_actions SET prev_hash = $1, entry_hash = $2 WHERE id = $3',
  list: `SELECT * FROM admin_actions WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR action = $2)
    AND ($3::text IS NULL OR target = $3) ORDER BY id DESC LIMIT $4`,
  page: 'SELECT * FROM admin_actions WHERE id > $1 ORDER BY id LIMIT $2',
};

/** audit-store.ts for Postgres. */
export class PostgresAuditRepository implements AuditRepository {
  private readonly pg: PgExecutor;

  constructor(pg: PgExecutor) {
    this.pg = pg;
  }

  async record(
    actor: AuditActor,
    action: string,
    target: string | null,
    details: Record<string, unknown> | null,
    at: string,
  ): Promise<void> {
    await this.pg.atomically(async (tx) => {
      await tx.query(SQL.lock, [AUDIT_LOCK]);
      const prev = (await tx.query<{ entry_hash: string | null }>(SQL.last)).rows[0]?.entry_hash ?? GENESIS_HASH;
      const json = details === null ? null : JSON.stringify(details);
      const id = Number(
        (await tx.query<{ id: bigint }>(SQL.insert, [at, actor.keyHash, actor.label, actor.accountId, action, target, json])).rows[0]!.id,
      );
      const fields = {
        id,
        at,
        actor_key_hash: actor.keyHash,
        actor_label: actor.label,
        actor_account_id: actor.accountId,
        action,
        target,
        details: json,
      };
      await tx.query(SQL.seal, [prev, entryHash(fields, prev), id]);
    });
  }

  async list(filter: { action?: string; target?: string }, beforeId: number | null, limit: number): Promise<AuditEntry[]> {
    return (await this.pg.query<AuditRow>(SQL.list, [beforeId, filter.action ?? null, filter.target ?? null, limit])).rows.map(
      toAuditEntry,
    );
  }

  /** Walks the whole chain in pages; the first broken entry, or null. */
  async verify(pageSize = 1000): Promise<{ checked: number; broken: ChainBreak | null }> {
    let after = 0;
    let prev = GENESIS_HASH;
    let checked = 0;
    for (;;) {
      const rows = (await this.pg.query<AuditRow>(SQL.page, [after, pageSize])).rows.map(toChainRow);
      if (rows.length === 0) return { checked, broken: null };
      const r = checkChain(rows, prev);
      if ('broken' in r) return { checked, broken: r.broken };
      prev = r.last;
      checked += rows.length;
      after = rows.at(-1)!.id;
    }
  }
}

function toChainRow(r: AuditRow): ChainRow {
  return { ...toChainFields(r), prev_hash: r.prev_hash ?? null, entry_hash: r.entry_hash ?? null };
}

/** Chains the rows written before the chain existed, in id order (run by the migration that added it, in its transaction). */
export async function sealPostgresAuditChain(client: pg.PoolClient): Promise<void> {
  const rows = (await client.query<AuditRow>('SELECT * FROM admin_actions ORDER BY id')).rows;
  let prev = GENESIS_HASH;
  for (const r of rows) {
    const hash = entryHash(toChainFields(r), prev);
    await client.query(SQL.seal, [prev, hash, String(r.id)]);
    prev = hash;
  }
}
