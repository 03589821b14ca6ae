import type { DatabaseSync } from 'node:sqlite';
import { BalanceOutOfBounds, MAX_BALANCE_NANOS } from '../../money/amount-bounds.ts';
import { transaction } from './open-database.ts';
import { namesOf, STORED_COLUMNS, storedValues } from '../generation-row.ts';
import { RecordNames } from './record-names.ts';
import { RefusalCountWriter } from './refusal-counts.ts';
import type { RefusalCount } from '../refusal-records.ts';
import {
  addToRollup,
  coarseRollups,
  GLOBAL_ROLLUP_UPSERT_SQL,
  globalRollupParams,
  KEYS_ROLLUP_UPSERT_SQL,
  keysRollupParams,
  ROLLUP_UPSERT_SQL,
  rollupParams,
  type RollupRow,
} from '../usage-rollup.ts';
import type { SettlementRecord, HoldRecord } from '../ledger-records.ts';

export class LedgerStore {
  private readonly db: DatabaseSync;
  private readonly stmts;
  private readonly refusals: RefusalCountWriter;
  private readonly names: RecordNames;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.refusals = new RefusalCountWriter(db);
    this.names = new RecordNames(db);
    this.stmts = {
      insertEntry: db.prepare(`INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, note, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      moveBalance: db.prepare('UPDATE accounts SET balance_nanos = balance_nanos + ? WHERE id = ?'),
      // An operator's entry moves the balance only within its bounds, checked in the same statement.
      moveBalanceWithin: db.prepare(
        'UPDATE accounts SET balance_nanos = balance_nanos + ? WHERE id = ? AND balance_nanos + ? BETWEEN ? AND ?',
      ),
      keyUsage: db.prepare(`UPDATE api_keys SET usage_nanos = usage_nanos + ?,
        last_used = CASE WHEN last_used IS NULL OR last_used < ? THEN ? ELSE last_used END WHERE hash = ?`),
      insertHold: db.prepare(
        'INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertHoldAgain:
        db.prepare(`INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO NOTHING`),
      alreadySettled: db.prepare(`SELECT 1 AS settled FROM generation_records g WHERE id = ?
        AND NOT EXISTS (SELECT 1 FROM record_names n WHERE n.id = g.error_code_ref AND n.name = 'interrupted')`),
      removeHold: db.prepare('DELETE FROM reservations WHERE id = ?'),
      balance: db.prepare('SELECT balance_nanos FROM accounts WHERE id = ?'),
      totals: db.prepare(`SELECT coalesce(sum(CASE WHEN kind IN ('credit', 'adjustment') THEN amount_nanos ELSE 0 END), 0) AS credits,
        coalesce(-sum(CASE WHEN kind = 'charge' THEN amount_nanos ELSE 0 END), 0) AS usage FROM ledger WHERE account_id = ?`),
      // A settlement written late (the database refused it for a while) may find the
      // 'interrupted' record the stale-hold sweep left for its request: it takes its place.
      insertGeneration: db.prepare(`INSERT INTO generation_records (${STORED_COLUMNS.join(', ')})
        VALUES (${STORED_COLUMNS.map(() => '?').join(', ')})
        ON CONFLICT (id) DO UPDATE SET ${STORED_COLUMNS.slice(1)
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}
        WHERE generation_records.error_code_ref = (SELECT id FROM record_names WHERE name = 'interrupted')`),
      upsertRollup: db.prepare(ROLLUP_UPSERT_SQL),
      upsertGlobalRollup: db.prepare(GLOBAL_ROLLUP_UPSERT_SQL),
      upsertKeysRollup: db.prepare(KEYS_ROLLUP_UPSERT_SQL),
    };
    this.stmts.balance.setReadBigInts(true);
    this.stmts.totals.setReadBigInts(true);
  }

  /**
   * An operator's entry: `credit` (credits added, positive) or `adjustment` (a correction
   * either way, e.g. a refund reversal). Returns the new balance. An entry that would take
   * the balance past ±MAX_BALANCE is refused (BalanceOutOfBounds) and writes nothing.
   */
  addEntry(accountId: string, kind: 'credit' | 'adjustment', amountNanos: bigint, note: string | null, now: string): bigint {
    if (kind === 'credit' && amountNanos <= 0n) throw new Error('credits added must be a positive amount');
    return transaction(this.db, () => {
      const moved = this.stmts.moveBalanceWithin.run(amountNanos, accountId, amountNanos, -MAX_BALANCE_NANOS, MAX_BALANCE_NANOS);
      if (Number(moved.changes) === 0) {
        const row = this.stmts.balance.get(accountId) as { balance_nanos: bigint } | undefined;
        if (row === undefined) throw new Error(`no account ${accountId}`);
        throw new BalanceOutOfBounds(row.balance_nanos, amountNanos);
      }
      this.stmts.insertEntry.run(accountId, null, kind, amountNanos, null, note, now);
      return (this.stmts.balance.get(accountId) as { balance_nanos: bigint }).balance_nanos;
    });
  }

  /**
   * For GET /credits: credits granted (credits added plus operator adjustments, either
   * way) and charges made, so that credits − usage is always the balance.
   */
  totals(accountId: string): { creditsNanos: bigint; usageNanos: bigint } {
    const row = this.stmts.totals.get(accountId) as { credits: bigint; usage: bigint };
    return { creditsNanos: row.credits, usageNanos: row.usage };
  }

  /**
   * Writes a batch in one transaction: new hold rows, then settlements (hold row removed,
   * charge, generation record). Balances, key usage and the daily usage rollups move once
   * per account, key and rollup row per batch, which keeps the cost per request low under load.
   *
   * `replay`: the batch may have been committed already (the writer thread died between
   * its COMMIT and its answer): hold rows present are kept, records already settled are
   * skipped (their hold row removed if one is left), so nothing is charged twice. (Refusal
   * counts of a replayed batch may be counted twice: they are counts, not charges.)
   */
  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals: readonly RefusalCount[] = [], replay = false): void {
    if (holds.length === 0 && batch.length === 0 && refusals.length === 0) return;
    const s = this.stmts;
    const insertHold = replay ? s.insertHoldAgain : s.insertHold;
    if (batch.length > 0) this.names.ensure(batch.flatMap(namesOf));
    const ref = this.names.ref;
    transaction(this.db, () => {
      for (const h of holds) insertHold.run(h.id, h.accountId, h.keyHash, h.amountNanos, h.createdAt, h.expiresAt);
      const byAccount = new Map<string, bigint>();
      const byKey = new Map<string, { cost: bigint; at: string }>();
      const rollups = new Map<string, RollupRow>();
      for (const r of batch) {
        if (replay) {
          s.removeHold.run(r.id);
          if (s.alreadySettled.get(r.id) !== undefined) continue;
        } else if (r.holdRowWritten) s.removeHold.run(r.id);
        // A record already settled (changes 0) is neither charged nor counted twice: the
        // generation record's unique id is what keeps one charge per generation (migration 27).
        const written = s.insertGeneration.run(...storedValues(r, ref));
        if (Number(written.changes) === 0) continue;
        addToRollup(rollups, r);
        if (r.costNanos !== 0n) {
          s.insertEntry.run(r.accountId, r.keyHash, 'charge', -r.costNanos, r.id, null, r.createdAt);
          byAccount.set(r.accountId, (byAccount.get(r.accountId) ?? 0n) + r.costNanos);
        }
        const k = byKey.get(r.keyHash);
        if (k === undefined) byKey.set(r.keyHash, { cost: r.costNanos, at: r.createdAt });
        else {
          k.cost += r.costNanos;
          if (r.createdAt > k.at) k.at = r.createdAt;
        }
      }
      for (const row of rollups.values()) s.upsertRollup.run(...rollupParams(row));
      const coarse = coarseRollups(rollups.values());
      for (const row of coarse.global) s.upsertGlobalRollup.run(...globalRollupParams(row));
      for (const row of coarse.keys) s.upsertKeysRollup.run(...keysRollupParams(row));
      for (const [accountId, cost] of byAccount) s.moveBalance.run(-cost, accountId);
      for (const [keyHash, k] of byKey) s.keyUsage.run(k.cost, k.at, k.at, keyHash);
      if (refusals.length > 0) this.refusals.write(refusals);
    });
  }
}
