import type { DatabaseSync } from 'node:sqlite';
import { checkChain, entryHash, GENESIS_HASH, toChainFields, type ChainBreak, type ChainRow } from '../audit-chain.ts';
import { transaction } from './open-database.ts';
import { type AuditActor, type AuditEntry, type AuditRow, toAuditEntry } from '../audit-records.ts';

// The admin audit log (table admin_actions): who did what, on what, when. Written in the
// transaction of the change it records. Details never hold a secret or a full key.
// Each row is chained to the one before it (audit-chain.ts); record() takes the write lock
// (an IMMEDIATE transaction, or the caller's) so the chain stays one line.

export class AuditStore {
  private readonly db: DatabaseSync;
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      last: db.prepare('SELECT entry_hash FROM admin_actions ORDER BY id DESC LIMIT 1'),
      seal: db.prepare('UPDATE admin_actions SET prev_hash = ?, entry_hash = ? WHERE id = ?'),
      insert: db.prepare(`INSERT INTO admin_actions (at, actor_key_hash, actor_label, actor_account_id, action, target, details)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      list: db.prepare(`SELECT * FROM admin_actions WHERE (?1 IS NULL OR id < ?1) AND (?2 IS NULL OR action = ?2)
        AND (?3 IS NULL OR target = ?3) ORDER BY id DESC LIMIT ?4`),
    };
  }

  record(actor: AuditActor, action: string, target: string | null, details: Record<string, unknown> | null, at: string): void {
    transaction(this.db, () => {
      const prev = (this.stmts.last.get() as { entry_hash: string | null } | undefined)?.entry_hash ?? GENESIS_HASH;
      const json = details === null ? null : JSON.stringify(details);
      const id = Number(this.stmts.insert.run(at, actor.keyHash, actor.label, actor.accountId, action, target, json).lastInsertRowid);
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
      this.stmts.seal.run(prev, entryHash(fields, prev), id);
    });
  }

  /** Newest first, entries before `beforeId`; optionally one action or one target. */
  list(filter: { action?: string; target?: string }, beforeId: number | null, limit: number): AuditEntry[] {
    const rows = this.stmts.list.all(beforeId, filter.action ?? null, filter.target ?? null, limit) as unknown as AuditRow[];
    return rows.map(toAuditEntry);
  }
}

/** Rows in id order after `afterId`, at most `limit` (audit verify reads the chain in pages). */
export function readChainPage(db: DatabaseSync, afterId: number, limit: number): ChainRow[] {
  const rows = db.prepare('SELECT * FROM admin_actions WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit) as unknown as AuditRow[];
  return rows.map((r) => ({ ...toChainFields(r), prev_hash: r.prev_hash ?? null, entry_hash: r.entry_hash ?? null }));
}

/** Chains the rows written before the chain existed, in id order (run by the migration that added it). */
export function sealAuditChain(db: DatabaseSync): void {
  const rows = db.prepare('SELECT * FROM admin_actions ORDER BY id').all() as unknown as AuditRow[];
  const seal = db.prepare('UPDATE admin_actions SET prev_hash = ?, entry_hash = ? WHERE id = ?');
  let prev = GENESIS_HASH;
  for (const r of rows) {
    const hash = entryHash(toChainFields(r), prev);
    seal.run(prev, hash, Number(r.id));
    prev = hash;
  }
}

/** Walks the whole chain in pages; the first broken entry, or null. */
export function verifySqliteAuditChain(db: DatabaseSync, pageSize = 1000): { checked: number; broken: ChainBreak | null } {
  let after = 0;
  let prev = GENESIS_HASH;
  let checked = 0;
  for (;;) {
    const rows = readChainPage(db, after, pageSize);
    if (rows.length === 0) return { checked, broken: null };
    const r = checkChain(rows, prev);
    if ('broken' in r) return { checked, broken: r.broken };
    prev = r.last;
    checked += rows.length;
    after = rows.at(-1)!.id;
  }
}
