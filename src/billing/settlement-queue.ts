import { GatewayError } from '../errors/gateway-error.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import type { HoldRecord, SettlementRecord, SettlementWriter } from '../store/ledger-records.ts';
import { addRefusal, type RefusalCount } from '../store/refusal-records.ts';

/** What `push` resolves with: whether the record reached the database. */
export type SettlementResult = { committed: true } | { committed: false; error: unknown };

export interface SettlementQueueOptions {
  /** Operator log: write failures (once per outage), recovery, dropped records. */
  log: (message: string) => void;
  /** First retry delay after a failed write; doubles up to `maxRetryMs`. */
  firstRetryMs?: number;
  maxRetryMs?: number;
  /**
   * The in-flight journal (docs/billing.md, "Reserve, then settle"): 0 (the default) makes a
   * hold row a write of its own that the admission waits for (`holdWritten`); N > 0 lets
   * hold rows ride with the next batch the queue writes anyway, or go at the latest N ms
   * after the first of them was queued (one timer for the queue), and nobody waits for them.
   */
  holdJournalMs?: number;
}

interface Queued {
  record: SettlementRecord;
  /** The request's waiter; null once it has been told (a record retried after a failure). */
  notify: ((result: SettlementResult) => void) | null;
}

// SQLite primary result codes that say the database cannot be written right now, whatever
// the record: busy, locked, out of memory, read-only, I/O error, corrupt, full, cannot open.
const STORAGE_CODES = new Set([5, 6, 7, 8, 10, 11, 13, 14, 15, 26]);

/**
 * The database refused the write for a reason of its own (not this record's): retry later.
 * So is a write the writer thread could not make (it died: `storageFailure`, sqlite-writer/),
 * and one a fleet's Postgres could not take (unreachable, connection lost: SharedStateUnavailable).
 */
export function isStorageFailure(err: unknown): boolean {
  if ((err as { storageFailure?: unknown } | null)?.storageFailure === true) return true;
  if (err instanceof SharedStateUnavailable) return true;
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && STORAGE_CODES.has(code & 0xff);
}

/** The refusal while charges cannot be written: the gateway fails closed. */
export function storageUnavailable(): GatewayError {
  return new GatewayError(
    'storage_unavailable',
    'The gateway cannot write to its database right now, so it cannot record charges and is not serving model calls. Retry later.',
    { headers: { 'retry-after': '1' } },
  );
}

/**
 * Group commit for the ledger: hold rows and settlements queued while the previous batch
 * was being written share the next transaction (a transaction costs about as much as
 * three records), so the database's cost per request falls as load rises. One batch is in
 * flight at a time, so hold rows and settlements reach the database in the order they were
 * queued; the next batch accumulates meanwhile and goes as soon as the previous one
 * committed (pipelining). The flush is not delayed to make batches larger: the answer's
 * last bytes wait for it. `push` resolves with `{committed: true}` once the settlement is
 * committed; the route writes the answer's last bytes only then, so an answer a client
 * received whole always has its charge on disk. A hold settled before its row was written
 * is never written at all. With the in-flight journal (`holdJournalMs` > 0) hold rows alone
 * start no batch: they ride with the next one, or go when the journal's one timer fires.
 *
 * When the database refuses writes (read-only, disk full, I/O error, the writer thread
 * died, a fleet's Postgres unreachable), nothing is lost: the records stay queued in memory and are retried (on a timer
 * with backoff, and at every flush), their waiters learn `{committed: false}` (so the
 * answer is not delivered), and committed listeners — the in-memory balances — hear only
 * of records actually written, after their commit. `failing` is true until every queued
 * record has been written.
 */
export class SettlementQueue {
  private holds = new Map<string, HoldRecord>();
  /** The admissions waiting for their hold row's commit (`holdWritten`). */
  private readonly holdWaiters = new Map<string, PromiseWithResolvers<SettlementResult>>();
  private pending: Queued[] = [];
  /** Refusals counted since the last batch, per key × minute × reason (refusal-counts.ts). */
  private refusals = new Map<string, RefusalCount>();
  private scheduled = false;
  /** The write in flight (one batch, or one record at a time after a record's own failure), null when none. */
  private inFlight: Promise<void> | null = null;
  private failure: unknown = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs: number;
  private readonly firstRetryMs: number;
  private readonly maxRetryMs: number;
  private readonly ledger: SettlementWriter;
  private readonly log: (message: string) => void;
  private readonly committedListeners: Array<(batch: readonly SettlementRecord[]) => void> = [];
  private readonly droppedListeners: Array<(record: SettlementRecord) => void> = [];
  private readonly flushBound = () => void this.flush();
  private readonly retryBound = () => {
    this.retryTimer = null;
    void this.flush();
  };
  private readonly holdJournalMs: number;
  /** The journal's timer: armed by the first hold row queued, cleared when a batch takes them. */
  private journalTimer: NodeJS.Timeout | null = null;
  /** The queued hold rows must go now (their interval ran out, or their write failed and is retried). */
  private holdsDue = false;
  private readonly journalBound = () => {
    this.journalTimer = null;
    this.holdsDue = true;
    void this.flush();
  };

  constructor(ledger: SettlementWriter, opts: SettlementQueueOptions) {
    this.ledger = ledger;
    this.log = opts.log;
    this.firstRetryMs = opts.firstRetryMs ?? 100;
    this.maxRetryMs = opts.maxRetryMs ?? 5000;
    this.retryDelayMs = this.firstRetryMs;
    this.holdJournalMs = opts.holdJournalMs ?? 0;
  }

  /** True while records wait because the database refused to write them. */
  get failing(): boolean {
    return this.failure !== null;
  }

  /**
   * True while a write is in flight or has failed: records of it may or may not be in the
   * database as read now (a write that failed because the writer thread died may have
   * committed). A balance read meanwhile is not moved by their commit (credit-reservations.ts).
   */
  get inDoubt(): boolean {
    return this.inFlight !== null || this.failure !== null;
  }

  /** Records (settlements) waiting to be written. */
  get queued(): number {
    return this.pending.length;
  }

  /** Called with every committed batch (in-memory spend counters follow the database). */
  onCommitted(listener: (batch: readonly SettlementRecord[]) => void): void {
    this.committedListeners.push(listener);
  }

  /** Called for a record the database rejects for its own sake (never written, never retried). */
  onDropped(listener: (record: SettlementRecord) => void): void {
    this.droppedListeners.push(listener);
  }

  /**
   * Queues a hold row for the next batch. Strict (`holdJournalMs` 0): `holdWritten(id)` says
   * when it is committed, the pipeline sends nothing upstream before, so every request an
   * upstream may bill has a durable row, which a restart after a crash records as
   * interrupted. With the journal, the row waits for the next batch written anyway (a
   * settlement's), at the latest `holdJournalMs`; a request settled before never writes it.
   */
  pushHold(hold: HoldRecord): void {
    this.holds.set(hold.id, hold);
    if (this.holdJournalMs === 0) {
      this.holdWaiters.set(hold.id, Promise.withResolvers<SettlementResult>());
      this.schedule();
    } else if (this.holdsDue) this.schedule();
    else if (this.journalTimer === null) {
      this.journalTimer = setTimeout(this.journalBound, this.holdJournalMs);
      this.journalTimer.unref();
    }
  }

  /**
   * A request refused at admission: counted (per key, minute and reason) in the next batch,
   * never a row of its own. Nobody waits for it; counts the database refuses are kept and
   * retried with the settlements.
   */
  countRefusal(accountId: string, keyHash: string, reason: string, at: number): void {
    addRefusal(this.refusals, accountId, keyHash, reason, at);
    this.schedule();
  }

  /**
   * Resolves once the hold row `id` is committed (`{committed: true}`), or its write failed
   * (`{committed: false}`: then `forgetHold` it and refuse the request). Ask it right after
   * `pushHold` (in the same turn of the event loop): the answer is kept until the batch ends.
   * Null when there is nothing to wait for: no row queued, or the journal defers it.
   */
  holdWritten(id: string): Promise<SettlementResult> | null {
    return this.holdWaiters.get(id)?.promise ?? null;
  }

  /** A hold whose row could not be written, for a request refused: it is not written later. */
  forgetHold(id: string): void {
    this.holds.delete(id);
    this.holdWaiters.delete(id);
  }

  push(record: SettlementRecord): Promise<SettlementResult> {
    // Settled before its hold row was written: the row is never written, nor removed.
    if (this.holds.delete(record.id)) record.holdRowWritten = false;
    this.holdWaiters.delete(record.id);
    return new Promise((resolve) => {
      this.pending.push({ record, notify: resolve });
      this.schedule();
    });
  }

  /** Tries the queued records now (a request arriving while failing). True when nothing failed. */
  async retry(): Promise<boolean> {
    await this.flush();
    return !this.failing;
  }

  /** Writes what is queued, and stops retrying. */
  async close(): Promise<void> {
    this.holdsDue = true;
    await this.flush();
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.journalTimer !== null) clearTimeout(this.journalTimer);
    this.journalTimer = null;
    if (this.pending.length > 0)
      this.log(`${this.pending.length} settlement(s) could not be written before shutdown: their charges are lost`);
  }

  /**
   * Writes what is queued; resolves once it is written or has failed. While a batch is in
   * flight, what is queued meanwhile goes in the next one, right after it.
   */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.inFlight === null) {
      this.inFlight = this.drain().finally(() => {
        this.inFlight = null;
        // Queued after the last batch was taken but before this point (a waiter's continuation
        // that settles or holds again): not left waiting for a push or a retry that may not come.
        if (this.pending.some((q) => q.notify !== null) || (this.failure === null && (this.holdsToWrite() || this.refusals.size > 0)))
          this.schedule();
      });
    }
    return this.inFlight;
  }

  /**
   * Batch after batch until nothing is queued, or the database refused one (then the retry
   * timer takes over, once the records queued during the refused write have been tried too,
   * so that their requests learn of it now rather than at the next retry).
   */
  private async drain(): Promise<void> {
    while (this.pending.length > 0 || this.holdsToWrite() || this.refusals.size > 0) {
      if (!(await this.writeBatch()) && !this.pending.some((q) => q.notify !== null)) return;
    }
  }

  /** Writes one batch of everything queued now; false when the database refused it. */
  private async writeBatch(): Promise<boolean> {
    const holds = [...this.holds.values()];
    const queued = this.pending;
    const refusals = [...this.refusals.values()];
    this.holds = new Map();
    // Every queued hold row rides with this batch: the journal's interval starts again with the next one.
    this.holdsDue = false;
    if (this.journalTimer !== null) clearTimeout(this.journalTimer);
    this.journalTimer = null;
    this.pending = [];
    this.refusals = new Map();
    const written: Queued[] = [];
    const retained: Queued[] = [];
    const retainedHolds: HoldRecord[] = [];
    const droppedHolds = new Map<string, unknown>();
    let storageError: unknown = null;
    try {
      await this.ledger.settle(
        holds,
        queued.map((q) => q.record),
        refusals,
      );
      written.push(...queued);
    } catch (first) {
      // The connection to Postgres was lost mid-write: the batch may have committed, its
      // answer lost. It is sent again at once (a Postgres batch is exact when retried:
      // store/postgres/postgres-settlement.ts; its refusal counts may then count twice),
      // so a cut connection alone refuses no answer.
      const err =
        first instanceof SharedStateUnavailable
          ? await this.tryWrite(
              holds,
              queued.map((q) => q.record),
              refusals,
            )
          : first;
      if (err === null) written.push(...queued);
      else if (isStorageFailure(err)) {
        storageError = err;
        retainedHolds.push(...holds);
        retained.push(...queued);
        this.keepRefusals(refusals);
      } else {
        if (refusals.length > 0) {
          const e = await this.tryWrite([], [], refusals);
          if (e !== null && isStorageFailure(e)) {
            storageError = e;
            this.keepRefusals(refusals);
          } else if (e !== null) this.log(`${refusals.length} refusal count(s) dropped, they cannot be written: ${(e as Error).message}`);
        }
        // One bad record must not take the others with it: write them one by one.
        for (const h of holds) {
          const e = await this.tryWrite([h], []);
          if (e !== null && isStorageFailure(e)) {
            storageError = e;
            retainedHolds.push(h);
          } else if (e !== null) {
            droppedHolds.set(h.id, e);
          }
        }
        for (const q of queued) {
          const e = await this.tryWrite([], [q.record]);
          if (e === null) written.push(q);
          else if (isStorageFailure(e)) {
            storageError = e;
            retained.push(q);
          } else {
            this.log(`settlement ${q.record.id} dropped, it cannot be written: ${(e as Error).message}`);
            for (const listener of this.droppedListeners) listener(q.record);
            q.notify?.({ committed: false, error: e });
            q.notify = null;
          }
        }
      }
    }
    this.requeue(retainedHolds, retained, written);
    this.holdsDone(holds, retainedHolds, droppedHolds, storageError);
    if (written.length > 0) {
      const records = written.map((q) => q.record);
      for (const listener of this.committedListeners) listener(records);
    }
    for (const q of written) q.notify?.({ committed: true });
    for (const q of retained) {
      q.notify?.({ committed: false, error: storageError });
      q.notify = null;
    }
    this.afterWrite(storageError);
    return storageError === null;
  }

  /** Tells the admissions waiting for these hold rows whether theirs was written. */
  private holdsDone(holds: HoldRecord[], retained: HoldRecord[], dropped: Map<string, unknown>, storageError: unknown): void {
    if (this.holdWaiters.size === 0) return;
    const notWritten = new Set(retained.map((h) => h.id));
    for (const h of holds) {
      const waiter = this.holdWaiters.get(h.id);
      if (waiter === undefined) continue;
      const error = dropped.get(h.id) ?? (notWritten.has(h.id) ? storageError : null);
      // A retained hold stays queued (retried) unless its request is refused meanwhile (forgetHold).
      this.holdWaiters.delete(h.id);
      waiter.resolve(error === null ? { committed: true } : { committed: false, error });
    }
  }

  /** Failed records go back in front of any queued meanwhile; a hold whose settlement committed is not rewritten. */
  private requeue(holds: HoldRecord[], records: Queued[], written: Queued[]): void {
    if (records.length > 0) this.pending = [...records, ...this.pending];
    if (holds.length === 0) return;
    const settled = new Set(written.map((q) => q.record.id));
    const next = new Map<string, HoldRecord>();
    for (const h of holds) if (!settled.has(h.id)) next.set(h.id, h);
    for (const [id, h] of this.holds) next.set(id, h);
    this.holds = next;
    // Rows whose write failed are retried with the settlements, not left for the journal's next interval.
    if (next.size > 0) this.holdsDue = true;
  }

  /** Counts the database refused go back, added to any counted meanwhile. */
  private keepRefusals(refusals: readonly RefusalCount[]): void {
    for (const r of refusals) addRefusal(this.refusals, r.accountId, r.keyHash, r.reason, Date.parse(`${r.minute}:00Z`), r.count);
  }

  private afterWrite(storageError: unknown): void {
    if (storageError !== null) {
      if (this.failure === null) {
        this.log(`settlement failed: ${(storageError as Error).message}; refusing model calls until the database accepts writes again`);
      }
      this.failure = storageError;
      if (this.retryTimer === null) {
        this.retryTimer = setTimeout(this.retryBound, this.retryDelayMs);
        this.retryTimer.unref();
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.maxRetryMs);
      }
      return;
    }
    // Hold rows queued since the last batch and not yet due never failed: they do not keep the refusal on.
    if (this.failure !== null && this.pending.length === 0 && !this.holdsToWrite() && this.refusals.size === 0) {
      this.failure = null;
      this.retryDelayMs = this.firstRetryMs;
      if (this.retryTimer !== null) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      this.log('settlements are written again: serving model calls');
    }
  }

  private async tryWrite(holds: HoldRecord[], batch: SettlementRecord[], refusals: readonly RefusalCount[] = []): Promise<unknown> {
    try {
      await this.ledger.settle(holds, batch, refusals);
      return null;
    } catch (e) {
      return e;
    }
  }

  /** Hold rows that must go in a batch of their own if nothing else is written: all of them, unless the journal defers them. */
  private holdsToWrite(): boolean {
    return this.holds.size > 0 && (this.holdJournalMs === 0 || this.holdsDue);
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight !== null) return;
    this.scheduled = true;
    setImmediate(this.flushBound);
  }
}
