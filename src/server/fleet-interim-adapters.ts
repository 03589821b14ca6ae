import type { AuthContext } from '../auth/authenticate.ts';
import type { HoldRecord, SettlementRecord } from '../store/ledger-store.ts';
import type { SpendState, StaleReservation } from '../store/reservation-store.ts';

// Interim seams of the fleet path (Postgres + Redis), until the engineers who own them land
// their parts. Each is a typed adapter with the gap it leaves stated; none is exact across
// instances. Remove them when:
// - TODO(settlement): SettlementQueue awaits an async `settle` (the writer-thread work). Then
//   pass PostgresLedger to the queue directly.
// - TODO(holds): RedisCreditHolds (billing/redis-credit-holds.ts, loader PostgresLedger.spendState)
//   is wired in place of the in-process CreditReservations in a fleet.

/**
 * SettlementQueue's synchronous `settle` over PostgresLedger's async one. GAP: the queue
 * believes a batch committed when this returns, before Postgres has committed it, so in a
 * fleet an answer's last byte does not yet wait for its charge to be durable, and a write
 * Postgres refuses is logged here rather than retried by the queue. Batches are written in
 * order, one at a time; `idle()` resolves when every batch handed over so far is written.
 */
export class PendingSettlementsLedger {
  private readonly settleAsync: (holds: readonly HoldRecord[], batch: readonly SettlementRecord[]) => Promise<void>;
  private readonly log: (message: string) => void;
  private chain: Promise<void> = Promise.resolve();

  constructor(settleAsync: (holds: readonly HoldRecord[], batch: readonly SettlementRecord[]) => Promise<void>, log: (message: string) => void) {
    this.settleAsync = settleAsync;
    this.log = log;
  }

  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[]): void {
    if (holds.length === 0 && batch.length === 0) return;
    this.chain = this.chain.then(() => this.settleAsync(holds, batch)).catch((err: unknown) => {
      this.log(`settlement of ${batch.length} record(s) failed in Postgres, their charges are not written: ${(err as Error).message}`);
    });
  }

  /** Every batch handed over so far is written (or logged as failed). */
  idle(): Promise<void> {
    return this.chain;
  }
}

/**
 * CreditReservations' spend-state source in a fleet: the key and account the authenticator
 * loaded last from Postgres (it always runs before a reservation). GAP: holds are per
 * instance, against a balance at most the authenticator's cache TTL old; stale hold rows are
 * not swept here (RedisCreditHolds.reconcile will).
 */
export class AuthFedSpendStates {
  private readonly loaded = new Map<string, AuthContext>();

  /** The authenticator's `onLoaded`. */
  remember(hash: string, ctx: AuthContext | null): void {
    if (ctx === null) this.loaded.delete(hash);
    else {
      if (this.loaded.size > 100_000) this.loaded.clear();
      this.loaded.set(hash, ctx);
    }
  }

  spendState(keyHash: string): SpendState | undefined {
    const ctx = this.loaded.get(keyHash);
    if (ctx === undefined) return undefined;
    return {
      balanceNanos: ctx.account.balanceNanos,
      accountActive: ctx.account.isActive,
      usageNanos: ctx.key.usageNanos,
      limitNanos: ctx.key.limitNanos,
      keyActive: ctx.key.isActive,
      expiresAt: ctx.key.expiresAt,
    };
  }

  releaseStale(_beforeIso: string | null, _nowIso: string): StaleReservation[] {
    return [];
  }
}
