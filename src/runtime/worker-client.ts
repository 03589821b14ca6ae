import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';

// The life of one worker thread that answers requests by id: started on first use, kept
// out of the process's liveness while idle (unref) and in it while a call waits (ref),
// restarted on the next call after it exited. A call may carry a deadline, counted from
// when the thread is ready (its modules loaded: `serveThread` says so), so that a thread's
// start is not charged to the first call: past it the thread is terminated (whatever it
// was doing cannot be interrupted otherwise) and a fresh one serves the next call. Calls
// lost with a thread reject with `ThreadLost`, so the caller decides whether to run them
// again or elsewhere.

/** The envelope a thread served by `serveThread` receives. */
export interface ThreadCall<Req> {
  id: number;
  payload: Req;
}

/** The envelope it answers with: the reply, or the message of what it threw; or, once, that it is ready. */
export type ThreadAnswer<Reply> = { id: number; payload: Reply } | { id: number; failure: string } | { ready: true };

/** The thread did not answer within the call's deadline; it was terminated. */
export class ThreadTimeout extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The worker thread did not answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** The thread exited (crashed, ran out of memory, was terminated for another call's deadline) before answering. */
export class ThreadLost extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`The worker thread ended before answering (${reason}).`);
    this.reason = reason;
  }
}

/** The thread's handler threw: its message. */
export class ThreadFailure extends Error {}

export interface WorkerClientOptions {
  /** Bounds of the thread's heap and stack: a call that exceeds them ends the thread (ThreadLost). */
  resourceLimits?: ResourceLimits;
  /**
   * A bound on the thread's heap plus its external memory (ArrayBuffers, which
   * `resourceLimits` does not count), checked every MEMORY_CHECK_MS while a call waits: past
   * it the thread is ended (ThreadLost 'it ran out of memory').
   */
  maxMemoryMb?: number;
}

export const OUT_OF_MEMORY = 'it ran out of memory';
const MEMORY_CHECK_MS = 100;

interface Waiting<Reply> {
  resolve: (reply: Reply) => void;
  reject: (err: Error) => void;
  /** 0: none. */
  timeoutMs: number;
  timer: NodeJS.Timeout | null;
}

export class WorkerClient<Req, Reply> {
  private worker: Worker | null = null;
  /** The current thread said it is ready: deadlines run. */
  private ready = false;
  private memoryCheck: NodeJS.Timeout | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting<Reply>>();
  private readonly url: URL;
  private readonly options: WorkerClientOptions;

  constructor(url: URL, options: WorkerClientOptions = {}) {
    this.url = url;
    this.options = options;
  }

  /** Threads started so far (tests: a timeout restarts it). */
  started = 0;

  /**
   * Posts `payload` (moving `transfer` to the thread) and resolves with its reply. Rejects
   * with ThreadTimeout after `timeoutMs` (the thread is terminated, and every other call in
   * flight on it rejects with ThreadLost), ThreadLost when the thread ends first, or
   * ThreadFailure when the handler threw.
   */
  call(payload: Req, transfer: readonly Transferable[] = [], timeoutMs = 0): Promise<Reply> {
    const worker = this.thread();
    const id = this.nextId++;
    if (this.waiting.size === 0) {
      worker.ref();
      this.watchMemory(worker);
    }
    return new Promise<Reply>((resolve, reject) => {
      const entry: Waiting<Reply> = { resolve, reject, timeoutMs, timer: null };
      this.waiting.set(id, entry);
      if (this.ready) this.startDeadline(id, entry, worker);
      worker.postMessage({ id, payload } satisfies ThreadCall<Req>, transfer as Transferable[]);
    });
  }

  private startDeadline(id: number, entry: Waiting<Reply>, worker: Worker): void {
    const timeoutMs = entry.timeoutMs;
    if (timeoutMs <= 0) return;
    entry.timer = setTimeout(() => {
      if (!this.waiting.delete(id)) return;
      entry.reject(new ThreadTimeout(timeoutMs));
      this.restart(worker, `another call took longer than ${timeoutMs} ms`);
    }, timeoutMs);
  }

  /** Ends the thread (tests, shutdown); calls in flight reject with ThreadLost; a later call starts a new one. */
  async close(): Promise<void> {
    const w = this.worker;
    if (w === null) return;
    this.worker = null;
    this.stopWatchingMemory();
    this.failAll('it was closed');
    await w.terminate();
  }

  /** While calls wait, the thread's memory is checked against `maxMemoryMb`. */
  private watchMemory(worker: Worker): void {
    const maxMb = this.options.maxMemoryMb;
    if (maxMb === undefined || this.memoryCheck !== null) return;
    const limit = maxMb * 1024 * 1024;
    this.memoryCheck = setInterval(() => {
      if (this.worker !== worker || this.waiting.size === 0) return this.stopWatchingMemory();
      // Answered between the thread's own steps, even while it runs a long synchronous decode.
      worker.getHeapStatistics().then(
        (s) => {
          if (this.worker === worker && s.used_heap_size + s.external_memory > limit) this.restart(worker, OUT_OF_MEMORY);
        },
        () => {},
      );
    }, MEMORY_CHECK_MS);
    this.memoryCheck.unref();
  }

  private stopWatchingMemory(): void {
    if (this.memoryCheck !== null) clearInterval(this.memoryCheck);
    this.memoryCheck = null;
  }

  private restart(worker: Worker, reason: string): void {
    if (this.worker === worker) this.worker = null;
    this.stopWatchingMemory();
    this.failAll(reason);
    void worker.terminate();
  }

  private failAll(reason: string): void {
    for (const w of this.waiting.values()) {
      if (w.timer !== null) clearTimeout(w.timer);
      w.reject(new ThreadLost(reason));
    }
    this.waiting.clear();
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(this.url, this.options.resourceLimits === undefined ? {} : { resourceLimits: this.options.resourceLimits });
    this.started++;
    this.ready = false;
    worker.unref();
    worker.on('message', (m: ThreadAnswer<Reply>) => {
      if ('ready' in m) {
        if (this.worker !== worker) return;
        this.ready = true;
        for (const [id, entry] of this.waiting) this.startDeadline(id, entry, worker);
        return;
      }
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (w.timer !== null) clearTimeout(w.timer);
      if (this.waiting.size === 0) {
        worker.unref();
        this.stopWatchingMemory();
      }
      if ('payload' in m) w.resolve(m.payload);
      else w.reject(new ThreadFailure(m.failure));
    });
    let lastError = 'it exited';
    worker.on('error', (err: Error & { code?: string }) => {
      lastError = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? OUT_OF_MEMORY : `it failed: ${err.message}`;
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.stopWatchingMemory();
      this.failAll(lastError);
    });
    this.worker = worker;
    return worker;
  }
}
