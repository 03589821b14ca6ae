// Preloaded into a process under test (`node --import ./bench/loop-delay-preload.ts ...`):
// watches its event loop with perf_hooks.monitorEventLoopDelay and answers the benchmark
// over the IPC channel it was started with (bench/lib/processes.ts startChild, `ipc`):
//   {"loopDelay": "reset"}  → starts a new measurement, answers {"loopDelay": "reset"}
//   {"loopDelay": "read"}   → answers {"loopDelay": {maxMs, p99Ms, meanMs, count}} since the last reset
// It works for any Node program (Portkey's gateway as well as ours) and changes nothing
// else: without an IPC channel it does nothing, and the channel does not keep the
// process alive. The sampling timer (every RESOLUTION_MS) costs ~100 wake-ups a second.

import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;

if (typeof process.send === 'function') {
  let histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  process.on('message', (message: unknown) => {
    const ask = (message as { loopDelay?: unknown } | null)?.loopDelay;
    if (ask === 'reset') {
      histogram.disable();
      histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      histogram.enable();
      process.send!({ loopDelay: 'reset' });
    } else if (ask === 'read') {
      // Nanoseconds; the histogram's values include the sampling interval itself.
      const ms = (ns: number): number => ns / 1e6;
      process.send!({
        loopDelay: {
          maxMs: ms(histogram.max),
          p99Ms: ms(histogram.percentile(99)),
          meanMs: ms(histogram.mean),
          count: histogram.count,
          resolutionMs: RESOLUTION_MS,
        },
      });
    }
  });
  process.channel?.unref();
}
