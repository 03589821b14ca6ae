import type { LedgerStore, SettlementRecord } from '../store/ledger-store.ts';

/**
 * Group commit for settlements: requests finishing in the same turn of the event loop
 * share one transaction, so the ledger's cost per request stays small under load. `push`
 * resolves once the record is committed; the route writes the answer's last bytes only
 * then, so an answer a client received complete always has its charge on disk.
 */
export class SettlementQueue {
  private pending: SettlementRecord[] = [];
  private waiters: Array<() => void> = [];
  private scheduled = false;
  private readonly ledger: LedgerStore;
  private readonly onError: (err: unknown) => void;
  private readonly flushBound = () => this.flush();

  constructor(ledger: LedgerStore, onError: (err: unknown) => void) {
    this.ledger = ledger;
    this.onError = onError;
  }

  push(record: SettlementRecord): Promise<void> {
    this.pending.push(record);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushBound);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    try {
      this.ledger.settle(batch);
    } catch {
      // One bad record must not take the others with it: retry one by one, report failures.
      for (const r of batch) {
        try {
          this.ledger.settle([r]);
        } catch (e) {
          this.onError(e);
        }
      }
    }
    for (const w of waiters) w();
  }
}
