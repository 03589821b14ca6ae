import type { GenerationRecord } from './generation-records.ts';
import type { RefusalCount } from './refusal-records.ts';

// The ledger's records: settlements and hold rows (written in the settlement batches) and an
// account's ledger entries as the admin API pages them.

/** One finished request: its charge and its generation record, written together. */
export interface SettlementRecord extends GenerationRecord {
  /** The request's credit hold has a row in `reservations` to remove (holds settled before their row was written have none). */
  holdRowWritten: boolean;
}

/** A credit hold's durable row: written so a hold left by a dead process can be found. */
export interface HoldRecord {
  id: string;
  accountId: string;
  keyHash: string;
  amountNanos: bigint;
  createdAt: string;
  expiresAt: string;
}

/**
 * Where the settlement queue writes its batches: one transaction per call, resolved once it
 * committed, rejected with the database's error (its `errcode` kept) when it did not. The
 * SQLite writer thread (sqlite-writer/) and the Postgres ledger both are one.
 */
export interface SettlementWriter {
  /** `refusals`: counts of requests refused at admission (refusal-counts.ts), added in the same transaction. */
  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals?: readonly RefusalCount[]): Promise<void>;
}

/**
 * The ledger: every balance change is a row, and the account's balance column moves in
 * the same transaction, so the two never disagree. Settlements arrive in batches and are
 * written in one transaction each (group commit).
 */

export interface LedgerEntry {
  id: number;
  accountId: string;
  keyHash: string | null;
  kind: 'credit' | 'charge' | 'adjustment';
  amountNanos: bigint;
  generationId: string | null;
  note: string | null;
  createdAt: string;
}

export interface LedgerRow {
  id: bigint;
  account_id: string;
  key_hash: string | null;
  kind: LedgerEntry['kind'];
  amount_nanos: bigint;
  generation_id: string | null;
  note: string | null;
  created_at: string;
}

export function toLedgerEntry(r: LedgerRow): LedgerEntry {
  return {
    id: Number(r.id),
    accountId: r.account_id,
    keyHash: r.key_hash,
    kind: r.kind,
    amountNanos: r.amount_nanos,
    generationId: r.generation_id,
    note: r.note,
    createdAt: r.created_at,
  };
}
