import type { HoldRecord, LedgerStore, SettlementRecord } from '../store/ledger-store.ts';

/**
 * Group commit for the ledger: hold rows and settlements queued in the same turn of the
 * event loop share one transaction (a transaction costs about as much as three records),
 * so the database's cost per request falls as load rises. The flush is not delayed to
 * make batches larger: the answer's last bytes wait for it. `push` resolves once the settlement is committed; the route writes the answer's
 * last bytes only then, so an answer a client received whole always has its charge on disk.
 * A hold settled before its row was written is never written at all.
 */
export class SettlementQueue {
  private holds = new Map<string, HoldRecord>();
  private pending: SettlementRecord[] = [];
  private waiters: Array<() => void> = [];
  private scheduled = false;
  private readonly ledger: LedgerStore;
  private readonly onError: (err: unknown) => void;
  private readonly committedListeners: Array<(batch: readonly SettlementRecord[]) => void> = [];
  private readonly flushBound = () => this.flush();

  constructor(ledger: LedgerStore, onError: (err: unknown) => void) {
    this.ledger = ledger;
    this.onError = onError;
  }

  /** Called with every committed batch (in-memory spend counters follow the database). */
  onCommitted(listener: (batch: readonly SettlementRecord[]) => void): void {
    this.committedListeners.push(listener);
  }

  pushHold(hold: HoldRecord): void {
    this.holds.set(hold.id, hold);
    this.schedule();
  }

  push(record: SettlementRecord): Promise<void> {
    // Settled before its hold row was written: the row is never written, nor removed.
    if (this.holds.delete(record.id)) record.holdRowWritten = false;
    this.pending.push(record);
    this.schedule();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 && this.holds.size === 0) return;
    const holds = [...this.holds.values()];
    const batch = this.pending;
    const waiters = this.waiters;
    this.holds = new Map();
    this.pending = [];
    this.waiters = [];
    try {
      this.ledger.settle(holds, batch);
    } catch {
      // One bad record must not take the others with it: retry one by one, report failures.
      for (const h of holds) this.trySettle([h], []);
      for (const r of batch) this.trySettle([], [r]);
    }
    for (const listener of this.committedListeners) listener(batch);
    for (const w of waiters) w();
  }

  private trySettle(holds: HoldRecord[], batch: SettlementRecord[]): void {
    try {
      this.ledger.settle(holds, batch);
    } catch (e) {
      this.onError(e);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushBound);
  }
}
