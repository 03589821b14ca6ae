import type { HoldRecord, SettlementRecord } from '../../ledger-records.ts';
import type { RefusalCount } from '../../refusal-records.ts';
import type { PruneCutoff, PruneStep } from '../../record-pruning.ts';

// The messages between the gateway's main thread and its SQLite writer thread
// (writer-thread.ts). Records cross by structured clone (bigints included).

/** What the thread is started with. */
export interface WriterData {
  path: string;
  /** The WAL's bound (checkpointer-thread.ts): a commit that leaves the -wal file past it asks for a checkpoint now. */
  walLimitBytes: number;
  /** Shared with the checkpointer thread: adding 1 to element 0 (and notifying) asks it for a round now. */
  walSignal: Int32Array;
  /** How often the thread looks for other connections' commits (SQLite's data_version). */
  changeCheckMs: number;
}

/** The serve lease the thread renews (serve-lock.ts): holder token, TTL and period. */
export interface LeaseTerms {
  token: string;
  ttlMs: number;
  renewMs: number;
}

export type ToWriter =
  | {
      op: 'settle';
      id: number;
      holds: readonly HoldRecord[];
      batch: readonly SettlementRecord[];
      refusals: readonly RefusalCount[];
      replay: boolean;
    }
  | { op: 'exec'; id: number; sql: string }
  | { op: 'prune'; id: number; cutoffs: readonly PruneCutoff[]; start: number; limit: number }
  | { op: 'check-changes'; id: number }
  | { op: 'lease'; lease: LeaseTerms }
  | { op: 'compact-heap'; id: number }
  | { op: 'close'; id: number };

/** An error as it crossed the thread boundary: SQLite's codes kept, so it is classified alike. */
export interface WireError {
  message: string;
  errcode?: number;
  errstr?: string;
  code?: string;
}

/** The outcome of a lease renewal: rows changed (0: another holder has the lease), or the write's error. */
export type LeaseRenewal = { changes: number; expiresAt: number } | { error: string };

export type FromWriter =
  | { op: 'ready' }
  | { op: 'done'; id: number; step?: PruneStep }
  | { op: 'failed'; id: number; error: WireError }
  | { op: 'lease'; renewal: LeaseRenewal }
  | { op: 'external-change' };

export function toWire(err: unknown): WireError {
  const e = err as { message?: unknown; errcode?: unknown; errstr?: unknown; code?: unknown } | null;
  const out: WireError = { message: typeof e?.message === 'string' ? e.message : String(err) };
  if (typeof e?.errcode === 'number') out.errcode = e.errcode;
  if (typeof e?.errstr === 'string') out.errstr = e.errstr;
  if (typeof e?.code === 'string') out.code = e.code;
  return out;
}

export function fromWire(w: WireError): Error {
  const { message, ...codes } = w;
  return Object.assign(new Error(message), codes);
}
