import type { LedgerStore, SettlementRecord } from '../store/ledger-store.ts';

/**
 * Group commit for settlements: requests finishing in the same tick share one
 * transaction, so the ledger's cost per request stays small under load. The queue is
 * flushed before the next turn of the event loop and at shutdown.
 */
export class SettlementQueue {
  private pending: SettlementRecord[] = [];
  private scheduled = false;
  private readonly ledger: LedgerStore;
  private readonly onError: (err: unknown) => void;
  private readonly flushBound = () => this.flush();

  constructor(ledger: LedgerStore, onError: (err: unknown) => void) {
    this.ledger = ledger;
    this.onError = onError;
  }

  push(record: SettlementRecord): void {
    this.pending.push(record);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushBound);
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.ledger.settle(batch);
    } catch (err) {
      // One bad record must not drop the others: retry one by one, report the failures.
      for (const r of batch) {
        try {
          this.ledger.settle([r]);
        } catch (e) {
          this.onError(e);
        }
      }
    }
  }
}
