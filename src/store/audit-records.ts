// The admin audit log's entries (store-contract.ts's AuditRepository) and their rows.

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
  id: number | bigint;
  at: string;
  actor_key_hash: string;
  actor_label: string;
  actor_account_id: string;
  action: string;
  target: string | null;
  details: string | null;
  prev_hash?: string | null;
  entry_hash?: string | null;
}

export function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: Number(r.id),
    at: r.at,
    actor: { keyHash: r.actor_key_hash, label: r.actor_label, accountId: r.actor_account_id },
    action: r.action,
    target: r.target,
    details: r.details === null ? null : (JSON.parse(r.details) as Record<string, unknown>),
  };
}
