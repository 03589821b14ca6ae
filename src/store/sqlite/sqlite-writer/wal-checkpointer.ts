import { Worker } from 'node:worker_threads';
import type { CheckpointerData, CheckpointStats, FromCheckpointer, ToCheckpointer } from './checkpointer-protocol.ts';

/** A thread that died is not started again sooner than this. */
const RESTART_AFTER_MS = 1000;

/**
 * The main thread's side of the WAL checkpointer thread (checkpointer-thread.ts), woken and
 * closed by the SQLite writer (sqlite-writer.ts). The thread runs only while there are
 * writes to checkpoint: `wake` (each settlement batch) starts it when it is not running,
 * and it ends by itself once the database has been quiet for a while, so an idle gateway
 * does not pay for its memory. A thread that died is started again by the first `wake`
 * a second later, and the operator log says it died.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private readonly waiters = new Map<number, (m: FromCheckpointer) => void>();
  private nextId = 1;
  private closing = false;
  private readonly data: CheckpointerData;
  private readonly log: (message: string) => void;
  private readonly exitListeners: Array<(code: number) => void> = [];
  private readonly startListeners: Array<() => void> = [];
  /** After a thread died, none is started before this (ms since the epoch): no start per batch while it cannot run. */
  private notBefore = 0;

  constructor(data: CheckpointerData, log: (message: string) => void) {
    this.data = data;
    this.log = log;
  }

  /** Starts the thread unless it runs (cheap when it does). */
  wake(): void {
    if (this.worker === null && !this.closing && (this.notBefore === 0 || Date.now() >= this.notBefore)) this.start();
  }

  get running(): boolean {
    return this.worker !== null;
  }

  /** Each time a thread is started (tests). */
  onStart(listener: () => void): void {
    this.startListeners.push(listener);
  }

  /** Each time the thread ends: 0 when it ended because the database was quiet (tests). */
  onExit(listener: (code: number) => void): void {
    this.exitListeners.push(listener);
  }

  /** Runs a round now (starting the thread if need be); resolves once it is done (tests). */
  async checkpointNow(): Promise<void> {
    this.wake();
    await this.call((id) => ({ op: 'now', id }));
  }

  /** What the running thread counted since it started (starting it if need be: zeros). */
  async stats(): Promise<CheckpointStats> {
    this.wake();
    const m = await this.call((id) => ({ op: 'stats', id }));
    if (m.op !== 'stats') throw new Error('the WAL checkpointer thread stopped before answering');
    return m.stats;
  }

  /** A last PASSIVE round, then the thread ends; none starts again. */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    await this.call((id) => ({ op: 'close', id })).catch(() => {});
    await exited;
  }

  private call(message: (id: number) => ToCheckpointer): Promise<FromCheckpointer> {
    if (this.worker === null) return Promise.reject(new Error('the WAL checkpointer thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiters.set(id, resolve);
      this.worker!.postMessage(message(id));
    });
  }

  private start(): void {
    const worker = new Worker(new URL('./checkpointer-thread.ts', import.meta.url), { workerData: this.data });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: FromCheckpointer) => {
      const w = this.waiters.get(m.id);
      this.waiters.delete(m.id);
      w?.(m);
    });
    worker.on('error', (err: Error) => this.log(`the WAL checkpointer thread failed: ${err.message}`));
    for (const l of this.startListeners) l();
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const [id, w] of this.waiters) w({ op: 'done', id });
      this.waiters.clear();
      this.notBefore = code === 0 ? 0 : Date.now() + RESTART_AFTER_MS;
      if (code !== 0 && !this.closing)
        this.log(
          `the WAL checkpointer thread stopped (exit code ${code}); the first settlement after ${RESTART_AFTER_MS} ms starts a new one`,
        );
      for (const l of this.exitListeners) l(code);
    });
  }
}
