import { threadCpuUsage } from 'node:process';

// Memory given back once a load is over (issue 29: under 150 MB within 10 s of a load's end).
// Under load V8 grows the old generation to ~4× what is live and keeps it: the memory reducer
// shrinks it only some seconds later, and not all the way (182 MB 10 s after the bench's
// load, of which ~36 MB live). So, once the process has been busy and then quiet for
// `quietTicks` ticks in a row, one memory-reducing collection (runtime/compact-heap.ts) on
// the main thread and the SQLite writer's: a pause of a few tens of ms while nothing is served.
//
// Nothing on the hot path: busy or quiet is read from the main thread's own CPU time once a
// tick (one system call, unref'd timer), not counted per request. The main thread's, not the
// process's: the WAL checkpointer copying pages after a load is no request being served.

export interface IdleShrinkOptions {
  /** Tick length (default 1000 ms). */
  tickMs?: number;
  /** CPU per tick above which the process counts as busy (default 20 % of the tick). */
  busyShare?: number;
  /** CPU per tick under which a tick counts as quiet (default 2 % of the tick). */
  quietShare?: number;
  /** Quiet ticks in a row after a busy one before shrinking (default 2). */
  quietTicks?: number;
}

/** Starts watching; `shrink` runs once after each busy spell. Returns the stop function. */
export function shrinkHeapWhenIdle(shrink: () => void | Promise<void>, o: IdleShrinkOptions = {}): () => void {
  const tickMs = o.tickMs ?? 1000;
  const busyUs = tickMs * 1000 * (o.busyShare ?? 0.2);
  const quietUs = tickMs * 1000 * (o.quietShare ?? 0.02);
  const quietTicks = o.quietTicks ?? 2;
  let last = threadCpuUsage();
  let busy = false;
  let quiet = 0;
  let running = false;
  const timer = setInterval(() => {
    const now = threadCpuUsage();
    const used = now.user - last.user + now.system - last.system;
    last = now;
    if (running) return;
    if (used >= busyUs) {
      busy = true;
      quiet = 0;
    } else if (busy && used <= quietUs && ++quiet >= quietTicks) {
      busy = false;
      quiet = 0;
      running = true;
      void Promise.resolve()
        .then(shrink)
        .catch(() => {})
        .finally(() => {
          running = false;
          last = threadCpuUsage(); // the collection's own CPU is not a new busy spell
        });
    } else if (used > quietUs) quiet = 0;
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
