import type { HeapInfo } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { HoldRecord, SettlementRecord, SettlementWriter } from '../../ledger-records.ts';
import type { RefusalCount } from '../../refusal-records.ts';
import type { PruneCutoff, PruneStep } from '../../record-pruning.ts';
import type { CheckpointStats } from './checkpointer-protocol.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';
import { fromWire, type FromWriter, type LeaseRenewal, type LeaseTerms, type ToWriter, type WriterData } from './writer-protocol.ts';

export interface SqliteWriterOptions {
  /** Operator log: the thread stopping, and running again. */
  log: (message: string) => void;
  /** Period of the checkpointer thread's PASSIVE WAL checkpoints (default 200 ms). */
  checkpointMs?: number;
  /** The checkpointer thread ends after the database has been quiet this long (default 5 s); the next settlement starts it again. */
  checkpointerIdleMs?: number;
  /** With no settlement, every this many lease renewals (a commit each, every second) start it too (default 60), so they are checkpointed as well. */
  checkpointerWakeRenewals?: number;
  /** The WAL's bound in bytes (default 32 MiB, WAL_LIMIT_BYTES): past it the checkpointer has the writer start the file over, cut back to the bound (checkpointer-thread.ts). */
  walLimitBytes?: number;
  /** How often other connections' commits are looked for (default 100 ms): the operator CLI's changes count within that. */
  changeCheckMs?: number;
  /** After the thread died, a new one is started by the next write asked of it or after this long (default 500 ms), whichever comes first. */
  restartMs?: number;
}

/**
 * The writer thread is not running (it died, or is being restarted): the write was not
 * made, or — for one in flight when it died — may have been made. A storage failure:
 * the settlement queue keeps the records and retries (billing/settlement-queue.ts).
 */
export class WriterUnavailable extends Error {
  readonly storageFailure = true;
}

/** The default bound of the -wal file (docs/operations.md): a few seconds of writes at full load. */
export const WAL_LIMIT_BYTES = 32 * 1024 * 1024;

interface Waiter {
  resolve: (step?: PruneStep) => void;
  reject: (err: Error) => void;
}

/**
 * The main thread's side of the SQLite writer thread (writer-thread.ts), which owns the
 * database connection that settlements are committed on. `settle` resolves once the
 * batch is committed (durability as before: the answer's last bytes wait for it) and
 * rejects with SQLite's own error, `errcode` kept. The thread also renews the serve lease
 * handed to it (`renewLease`) and reports other connections' commits (`onExternalChange`).
 * The WAL is checkpointed by a thread of its own (wal-checkpointer.ts), woken by each batch
 * (it ends by itself once the database is quiet) and closed with this one, so that no
 * COMMIT runs a checkpoint and none holds the writer.
 *
 * When the thread dies, every write in flight is rejected (WriterUnavailable: the gateway
 * fails closed), and a new thread is started. A batch in flight when it died may have
 * committed before it could say so; the first batches written after a restart are
 * therefore written as replays (ledger-store.ts), which skip what is already there.
 */
export class SqliteWriter implements SettlementWriter {
  private readonly data: WriterData;
  private readonly log: (message: string) => void;
  private readonly restartMs: number;
  private worker: Worker | null = null;
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;
  private replay = false;
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private lease: { terms: LeaseTerms; onRenewal: (r: LeaseRenewal) => void } | null = null;
  private readonly changeListeners: Array<() => void> = [];
  private readonly checkpointer: WalCheckpointer;
  private readonly wakeRenewals: number;
  private renewals = 0;

  constructor(path: string, opts: SqliteWriterOptions) {
    const walLimitBytes = opts.walLimitBytes ?? WAL_LIMIT_BYTES;
    // The writer's commits signal the checkpointer through it, not through this thread.
    const walSignal = new Int32Array(new SharedArrayBuffer(4));
    this.data = { path, walLimitBytes, walSignal, changeCheckMs: opts.changeCheckMs ?? 100 };
    this.log = opts.log;
    this.restartMs = opts.restartMs ?? 500;
    const everyMs = opts.checkpointMs ?? 200;
    const idleRounds = Math.max(1, Math.ceil((opts.checkpointerIdleMs ?? 5000) / everyMs));
    this.checkpointer = new WalCheckpointer({ path, everyMs, walLimitBytes, walSignal, idleRounds }, this.log);
    this.wakeRenewals = opts.checkpointerWakeRenewals ?? 60;
    this.startThread();
  }

  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals: readonly RefusalCount[] = []): Promise<void> {
    if (holds.length === 0 && batch.length === 0 && refusals.length === 0) return Promise.resolve();
    // Writes to checkpoint: the checkpointer runs (it ends by itself when the database is quiet).
    this.checkpointer.wake();
    const replay = this.replay;
    return this.call((id) => ({ op: 'settle', id, holds, batch, refusals, replay })).then(() => {
      if (replay) this.replay = false;
    });
  }

  /**
   * Runs SQL on the writer's connection: its per-connection settings (PRAGMA query_only,
   * max_page_count), which is how tests make the database refuse the settlements' writes.
   */
  exec(sql: string): Promise<void> {
    return this.call((id) => ({ op: 'exec', id, sql }));
  }

  /** Renews the serve lease on the writer's connection from now on (serve-lock.ts `handOver`), reporting each renewal. */
  renewLease(terms: LeaseTerms, onRenewal: (r: LeaseRenewal) => void): void {
    this.lease = { terms, onRenewal };
    this.post({ op: 'lease', lease: terms });
  }

  /**
   * Looks for other connections' commits now rather than at the next check (every
   * `changeCheckMs`); resolves once any change seen has been reported to `onExternalChange`.
   */
  checkExternalChanges(): Promise<void> {
    return this.call((id) => ({ op: 'check-changes', id }));
  }

  /** Another connection committed (the operator CLI, or this process's main thread). */
  onExternalChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** One memory-reducing collection of the thread's heap (runtime/compact-heap.ts); resolves once done. */
  compactHeap(): Promise<void> {
    return this.call((id) => ({ op: 'compact-heap', id }));
  }

  /** The thread's V8 heap, as `v8.getHeapStatistics()` gives it there (diagnostics and tests). */
  async heapStatistics(): Promise<HeapInfo> {
    if (this.worker === null) throw new WriterUnavailable('the SQLite writer thread is not running');
    return await this.worker.getHeapStatistics();
  }

  /** Has the checkpointer thread run a round now; resolves once done (tests). */
  checkpointNow(): Promise<void> {
    return this.checkpointer.checkpointNow();
  }

  /** What the running checkpointer thread counted since it started (checkpoints run, the largest WAL seen). */
  checkpointStats(): Promise<CheckpointStats> {
    return this.checkpointer.stats();
  }

  /** The checkpointer thread itself (tests: whether it runs, when it ends). */
  get walCheckpointer(): WalCheckpointer {
    return this.checkpointer;
  }

  /** Stops the thread as a crash would (tests; a new one starts as after any crash). */
  async crash(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Lets every write posted so far finish, then ends the thread. Call after the settlement queue's close. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    await this.closeThread();
    // Last, so that it checkpoints every commit.
    await this.checkpointer.close();
  }

  private async closeThread(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    try {
      await this.call((id) => ({ op: 'close', id }));
    } catch {
      // It died on its own: nothing more to wait for.
    }
    await exited;
  }

  /** One step of the records' pruning (record-pruner.ts), on the writer's connection between settlement batches. */
  prune(cutoffs: readonly PruneCutoff[], start: number, limit: number): Promise<PruneStep> {
    // The thread answers a prune with its step ('done' carries it).
    return this.call((id) => ({ op: 'prune', id, cutoffs, start, limit })) as unknown as Promise<PruneStep>;
  }

  private call(message: (id: number) => ToWriter): Promise<void> {
    if (this.worker === null) {
      // Dead: this write fails (fail closed), and asks for the thread now rather than at its timer.
      if (!this.closing) this.startThread();
      return Promise.reject(new WriterUnavailable('the SQLite writer thread is restarting; the write was not made'));
    }
    const id = this.nextId++;
    // The thread keeps the process alive only while a write waits on it (a shutdown's last flush).
    if (this.waiters.size === 0) this.worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.waiters.set(id, { resolve: resolve as (step?: PruneStep) => void, reject });
      this.post(message(id));
    });
  }

  private post(message: ToWriter): void {
    this.worker?.postMessage(message);
  }

  private startThread(): void {
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const worker = new Worker(new URL('./writer-thread.ts', import.meta.url), { workerData: this.data });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: FromWriter) => this.receive(m));
    worker.on('error', (err: Error) => this.log(`the SQLite writer thread failed: ${err.message}`));
    worker.on('exit', (code) => this.exited(worker, code));
    // The lease is renewed by whichever thread is running.
    if (this.lease !== null) this.post({ op: 'lease', lease: this.lease.terms });
  }

  private receive(m: FromWriter): void {
    switch (m.op) {
      case 'ready':
        return;
      case 'done':
      case 'failed': {
        const w = this.waiters.get(m.id);
        this.waiters.delete(m.id);
        // Closing, it keeps the process alive until it has exited (the lease is released after that).
        if (this.waiters.size === 0 && !this.closing) this.worker?.unref();
        if (m.op === 'done') w?.resolve(m.step);
        else w?.reject(fromWire(m.error));
        return;
      }
      case 'lease':
        this.lease?.onRenewal(m.renewal);
        // An idle gateway's only commits: checkpointed now and then, not left to grow the WAL.
        if (++this.renewals >= this.wakeRenewals) {
          this.renewals = 0;
          this.checkpointer.wake();
        }
        return;
      case 'external-change':
        for (const l of this.changeListeners) l();
    }
  }

  private exited(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const gone = new WriterUnavailable(`the SQLite writer thread stopped (exit code ${code}) before answering; the write is retried`);
    for (const w of this.waiters.values()) w.reject(gone);
    this.waiters.clear();
    if (this.closing) return;
    // Whatever it was writing may have committed: what is written next skips what is there.
    this.replay = true;
    // Until the next thread renews the lease, the database counts as not written (/ready says so).
    this.lease?.onRenewal({ error: 'the SQLite writer thread stopped; a new one is starting' });
    this.log(`the SQLite writer thread stopped (exit code ${code}); settlements fail closed until a new one runs`);
    this.restartTimer = setTimeout(() => this.startThread(), this.restartMs);
    this.restartTimer.unref();
  }
}
