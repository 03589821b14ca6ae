import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './open-database.ts';

export interface ReservationRequest {
  id: string;
  accountId: string;
  keyHash: string;
  amountNanos: bigint;
  createdAt: string;
  expiresAt: string;
}

export type ReservationOutcome =
  | { ok: true }
  /** Account balance or the key's own limit cannot cover the hold; `availableNanos` is what could be spent. */
  | { ok: false; reason: 'balance' | 'key_limit'; availableNanos: bigint }
  /** The key was revoked or expired, or its account deactivated, since the auth cache last looked. */
  | { ok: false; reason: 'inactive'; availableNanos: 0n };

interface SpendRow {
  balance_nanos: bigint;
  account_reserved: bigint;
  account_active: bigint;
  limit_nanos: bigint | null;
  usage_nanos: bigint;
  key_reserved: bigint;
  key_active: bigint;
  expires_at: string | null;
}

export interface StaleReservation {
  id: string;
  accountId: string;
  keyHash: string;
  amountNanos: bigint;
}

/**
 * Credit holds. A hold is taken in one IMMEDIATE transaction that reads the balance and
 * the key's spend and writes the hold, so concurrent requests (threads of one process or
 * several processes on one database) can never together hold more than is there.
 */
export class ReservationStore {
  private readonly db: DatabaseSync;
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      spend: db.prepare(`SELECT a.balance_nanos, a.reserved_nanos AS account_reserved, a.is_active AS account_active,
          k.limit_nanos, k.usage_nanos, k.reserved_nanos AS key_reserved, k.is_active AS key_active, k.expires_at
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`),
      holdAccount: db.prepare('UPDATE accounts SET reserved_nanos = reserved_nanos + ? WHERE id = ?'),
      holdKey: db.prepare('UPDATE api_keys SET reserved_nanos = reserved_nanos + ? WHERE hash = ?'),
      insert: db.prepare('INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
      staleBefore: db.prepare('SELECT id, account_id, key_hash, amount_nanos FROM reservations WHERE expires_at < ?'),
      all: db.prepare('SELECT id, account_id, key_hash, amount_nanos FROM reservations'),
      remove: db.prepare('DELETE FROM reservations WHERE id = ?'),
      releaseAccount: db.prepare('UPDATE accounts SET reserved_nanos = reserved_nanos - ? WHERE id = ?'),
      releaseKey: db.prepare('UPDATE api_keys SET reserved_nanos = reserved_nanos - ? WHERE hash = ?'),
      recordInterrupted: db.prepare(`INSERT OR IGNORE INTO generations (id, account_id, key_hash, endpoint_dialect, streamed, cancelled, status, error_code, created_at)
        VALUES (?, ?, ?, '', 0, 1, 'error', 'interrupted', ?)`),
      count: db.prepare('SELECT count(*) AS n FROM reservations'),
    };
    this.stmts.spend.setReadBigInts(true);
    this.stmts.staleBefore.setReadBigInts(true);
    this.stmts.all.setReadBigInts(true);
  }

  reserve(r: ReservationRequest, nowMs: number): ReservationOutcome {
    return transaction(this.db, () => {
      const row = this.stmts.spend.get(r.keyHash) as SpendRow | undefined;
      if (row === undefined || row.key_active !== 1n || row.account_active !== 1n) return INACTIVE;
      if (row.expires_at !== null && Date.parse(row.expires_at) <= nowMs) return INACTIVE;
      const accountAvailable = row.balance_nanos - row.account_reserved;
      // A zero or negative balance refuses every request, free models included (spec).
      if (row.balance_nanos <= 0n || accountAvailable < r.amountNanos) {
        return { ok: false, reason: 'balance', availableNanos: clampZero(accountAvailable) };
      }
      if (row.limit_nanos !== null) {
        const keyAvailable = row.limit_nanos - row.usage_nanos - row.key_reserved;
        if (keyAvailable <= 0n || keyAvailable < r.amountNanos) {
          return { ok: false, reason: 'key_limit', availableNanos: clampZero(keyAvailable < accountAvailable ? keyAvailable : accountAvailable) };
        }
      }
      if (r.amountNanos === 0n) return OK; // a free model: checked, nothing to hold
      this.stmts.holdAccount.run(r.amountNanos, r.accountId);
      this.stmts.holdKey.run(r.amountNanos, r.keyHash);
      this.stmts.insert.run(r.id, r.accountId, r.keyHash, r.amountNanos, r.createdAt, r.expiresAt);
      return OK;
    });
  }

  /**
   * Releases holds left by requests that never settled (the process died mid-request, or
   * the request outlived its deadline) and leaves an `interrupted` generation record for
   * each. Nothing is charged: the answer never completed, so no charge existed to lose.
   * `beforeIso` null releases every hold: the start-up of the only process on this database.
   */
  releaseStale(beforeIso: string | null, nowIso: string): StaleReservation[] {
    return transaction(this.db, () => {
      const rows = (beforeIso === null ? this.stmts.all.all() : this.stmts.staleBefore.all(beforeIso)) as Array<{
        id: string; account_id: string; key_hash: string; amount_nanos: bigint;
      }>;
      for (const r of rows) {
        this.stmts.remove.run(r.id);
        this.stmts.releaseAccount.run(r.amount_nanos, r.account_id);
        this.stmts.releaseKey.run(r.amount_nanos, r.key_hash);
        this.stmts.recordInterrupted.run(r.id, r.account_id, r.key_hash, nowIso);
      }
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, keyHash: r.key_hash, amountNanos: r.amount_nanos }));
    });
  }

  count(): number {
    return Number((this.stmts.count.get() as { n: number }).n);
  }
}

const OK: ReservationOutcome = { ok: true };
const INACTIVE: ReservationOutcome = { ok: false, reason: 'inactive', availableNanos: 0n };

function clampZero(n: bigint): bigint {
  return n < 0n ? 0n : n;
}
