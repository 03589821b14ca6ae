import { BalanceOutOfBounds, MAX_BALANCE_NANOS } from '../../money/amount-bounds.ts';
import type { HoldRecord, SettlementRecord } from '../ledger-records.ts';
import type { RefusalCount } from '../refusal-records.ts';
import type { LedgerRepository } from '../store-contract.ts';
import type { PgExecutor } from './pg-executor.ts';
import type { PostgresLedger } from './postgres-ledger.ts';

const SQL = {
  // An operator's entry moves the balance only within its bounds, checked in the same statement.
  moveBalance:
    'UPDATE accounts SET balance_nanos = balance_nanos + $1 WHERE id = $2 AND balance_nanos + $1 BETWEEN $3 AND $4 RETURNING balance_nanos',
  balance: 'SELECT balance_nanos FROM accounts WHERE id = $1',
  insertEntry: `INSERT INTO ledger (account_id, key_hash, kind, amount_nanos, generation_id, note, created_at)
    VALUES ($1, NULL, $2, $3, NULL, $4, $5)`,
  totals: `SELECT coalesce(sum(CASE WHEN kind IN ('credit', 'adjustment') THEN amount_nanos ELSE 0 END), 0) AS credits,
    coalesce(-sum(CASE WHEN kind = 'charge' THEN amount_nanos ELSE 0 END), 0) AS usage FROM ledger WHERE account_id = $1`,
};

/** ledger-store.ts for Postgres: operator entries and totals here; settlement batches are PostgresLedger's. */
export class PostgresLedgerRepository implements LedgerRepository {
  private readonly pg: PgExecutor;
  private readonly settlements: PostgresLedger;

  constructor(pg: PgExecutor, settlements: PostgresLedger) {
    this.pg = pg;
    this.settlements = settlements;
  }

  async addEntry(accountId: string, kind: 'credit' | 'adjustment', amountNanos: bigint, note: string | null, now: string): Promise<bigint> {
    if (kind === 'credit' && amountNanos <= 0n) throw new Error('credits added must be a positive amount');
    return this.pg.atomically(async (tx) => {
      const moved = await tx.query<{ balance_nanos: bigint }>(SQL.moveBalance, [
        amountNanos,
        accountId,
        -MAX_BALANCE_NANOS,
        MAX_BALANCE_NANOS,
      ]);
      if (moved.rowCount === 0) {
        const row = (await tx.query<{ balance_nanos: bigint }>(SQL.balance, [accountId])).rows[0];
        if (row === undefined) throw new Error(`no account ${accountId}`);
        throw new BalanceOutOfBounds(row.balance_nanos, amountNanos);
      }
      await tx.query(SQL.insertEntry, [accountId, kind, amountNanos, note, now]);
      return moved.rows[0]!.balance_nanos;
    });
  }

  async totals(accountId: string): Promise<{ creditsNanos: bigint; usageNanos: bigint }> {
    const row = (await this.pg.query<{ credits: bigint; usage: bigint }>(SQL.totals, [accountId])).rows[0]!;
    return { creditsNanos: row.credits, usageNanos: row.usage };
  }

  /** Its own transaction on the pool, even inside Stores.transaction (settlements are batched across requests). */
  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals: readonly RefusalCount[] = []): Promise<void> {
    return this.settlements.settle(holds, batch, refusals);
  }
}
