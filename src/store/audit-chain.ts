import { createHash } from 'node:crypto';

// The audit log's hash chain: each admin_actions row carries the hash of the row before it
// (prev_hash) and its own (entry_hash = SHA-256 of the canonical form of the row and
// prev_hash), so changing, removing or reordering a row breaks every hash after it.
// Rows are chained in id order; writes are serialized (SQLite's writer thread, Postgres's
// advisory lock) so the chain stays one line. `switchyard audit verify` walks it.

/** The prev_hash of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

export interface ChainFields {
  id: number;
  at: string;
  actor_key_hash: string;
  actor_label: string;
  actor_account_id: string;
  action: string;
  target: string | null;
  details: string | null;
}

/** SHA-256 (hex) over a JSON array of the row's fields in a fixed order, then prev_hash. */
export function entryHash(r: ChainFields, prevHash: string): string {
  const canonical = JSON.stringify([
    r.id,
    r.at,
    r.actor_key_hash,
    r.actor_label,
    r.actor_account_id,
    r.action,
    r.target,
    r.details,
    prevHash,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface ChainRow extends ChainFields {
  prev_hash: string | null;
  entry_hash: string | null;
}

export interface ChainBreak {
  id: number;
  reason: string;
}

/**
 * Checks rows given in id order, continuing from `prev` (the hash of the row before the
 * first one given). Returns the first broken row, or the last hash to continue from.
 */
export function checkChain(rows: readonly ChainRow[], prev: string): { broken: ChainBreak } | { last: string } {
  for (const r of rows) {
    if (r.prev_hash !== prev)
      return {
        broken: { id: r.id, reason: 'its prev_hash is not the hash of the entry before it (an entry was changed, removed or inserted)' },
      };
    if (r.entry_hash !== entryHash(r, prev))
      return { broken: { id: r.id, reason: 'its content does not match its hash (the entry was changed)' } };
    prev = r.entry_hash;
  }
  return { last: prev };
}

export function toChainFields(r: { id: number | bigint } & Omit<ChainFields, 'id'>): ChainFields {
  return {
    id: Number(r.id),
    at: r.at,
    actor_key_hash: r.actor_key_hash,
    actor_label: r.actor_label,
    actor_account_id: r.actor_account_id,
    action: r.action,
    target: r.target,
    details: r.details,
  };
}
