import type { DatabaseSync } from 'node:sqlite';

// The admin audit log (table admin_actions): who did what, on what, when. Written in the
// transaction of the change it records. Details never hold a secret or a full key.

export interface AuditActor {
  keyHash: string;
  label: string;
  accountId: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: AuditActor;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditRow {
  id: number | bigint; at: string; actor_key_hash: string; actor_label: string; actor_account_id: string;
  action: string; target: string | null; details: string | null;
}

export class AuditStore {
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO admin_actions (at, actor_key_hash, actor_label, actor_account_id, action, target, details)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      list: db.prepare(`SELECT * FROM admin_actions WHERE (?1 IS NULL OR id < ?1) AND (?2 IS NULL OR action = ?2)
        AND (?3 IS NULL OR target = ?3) ORDER BY id DESC LIMIT ?4`),
    };
  }

  record(actor: AuditActor, action: string, target: string | null, details: Record<string, unknown> | null, at: string): void {
    this.stmts.insert.run(at, actor.keyHash, actor.label, actor.accountId, action, target, details === null ? null : JSON.stringify(details));
  }

  /** Newest first, entries before `beforeId`; optionally one action or one target. */
  list(filter: { action?: string; target?: string }, beforeId: number | null, limit: number): AuditEntry[] {
    const rows = this.stmts.list.all(beforeId, filter.action ?? null, filter.target ?? null, limit) as unknown as AuditRow[];
    return rows.map(toAuditEntry);
  }
}

export function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: Number(r.id), at: r.at,
    actor: { keyHash: r.actor_key_hash, label: r.actor_label, accountId: r.actor_account_id },
    action: r.action, target: r.target, details: r.details === null ? null : (JSON.parse(r.details) as Record<string, unknown>),
  };
}
