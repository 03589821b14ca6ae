import { Worker } from 'node:worker_threads';
import type { CheckpointerData, CheckpointStats, FromCheckpointer, ToCheckpointer } from './checkpointer-protocol.ts';

/**
 * The main thread's side of the WAL checkpointer thread (checkpointer-thread.ts), started
 * and closed by the SQLite writer (sqlite-writer.ts). A thread that dies is started again
 * after `restartMs`; until then the WAL only grows (nothing else checkpoints it while the
 * gateway runs), which the operator log says.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private readonly waiters = new Map<number, (m: FromCheckpointer) => void>();
  private nextId = 1;
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly data: CheckpointerData;
  private readonly log: (message: string) => void;
  private readonly restartMs: number;

  constructor(data: CheckpointerData, log: (message: string) => void, restartMs: number) {
    this.data = data;
    this.log = log;
    this.restartMs = restartMs;
    this.start();
  }

  /** Runs a round now; resolves once it is done (tests). */
  async checkpointNow(): Promise<void> {
    await this.call((id) => ({ op: 'now', id }));
  }

  /** What the thread counted since it started. */
  async stats(): Promise<CheckpointStats> {
    const m = await this.call((id) => ({ op: 'stats', id }));
    if (m.op !== 'stats') throw new Error('unexpected answer from the checkpointer thread');
    return m.stats;
  }

  /** A last PASSIVE round, then the thread ends. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
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
      this.post(message(id));
    });
  }

  private post(message: ToCheckpointer): void {
    this.worker?.postMessage(message);
  }

  private start(): void {
    this.restartTimer = null;
    const worker = new Worker(new URL('./checkpointer-thread.ts', import.meta.url), { workerData: this.data });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: FromCheckpointer) => {
      const w = this.waiters.get(m.id);
      this.waiters.delete(m.id);
      w?.(m);
    });
    worker.on('error', (err) => this.log(`the WAL checkpointer thread failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const w of this.waiters.values()) w({ op: 'done', id: 0 });
      this.waiters.clear();
      if (this.closing) return;
      this.log(`the WAL checkpointer thread stopped (exit code ${code}); a new one starts in ${this.restartMs} ms`);
      this.restartTimer = setTimeout(() => this.start(), this.restartMs);
      this.restartTimer.unref();
    });
  }
}
