/**
 * The model calls this process is serving, for a graceful stop. Streams are written on a
 * hijacked reply (generation-route.ts), which Fastify's close() does not wait for, so the
 * generation route registers every call here from admission to its settlement, and the
 * shutdown (cli/serve-command.ts) waits until none is left, bounded by the drain timeout;
 * past it, `cancelAll()` cancels what still runs (each is then settled as cancelled, with
 * what it used so far). `draining` also makes `/ready` answer 503 and new requests 503.
 */
export class InFlight {
  private readonly running = new Set<AbortController>();
  private idleWaiters: Array<() => void> = [];
  private drainingSince: number | null = null;

  get count(): number {
    return this.running.size;
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  startDraining(now = Date.now()): void {
    this.drainingSince ??= now;
  }

  /** A call begins; `controller` is the one that cancels it. Returns the call's end. */
  enter(controller: AbortController): () => void {
    this.running.add(controller);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.running.delete(controller);
      if (this.running.size === 0) this.wakeIdle();
    };
  }

  /** Resolves true once nothing runs, or false after `timeoutMs`, whichever is first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.running.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }

  /** Cancels every running call (the drain timeout passed). */
  cancelAll(): void {
    for (const controller of this.running) controller.abort();
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
