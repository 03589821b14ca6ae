// Preloaded into a benchmarked process (`node --import ./bench/gc-observer.ts ...`): sums
// garbage-collection pauses by kind through perf_hooks and, on SIGUSR2, writes the sums
// so far and process.memoryUsage() to stderr as one JSON line, then starts the sums
// afresh (so a caller can measure one phase). bench/memory-probe.ts reads it.

import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};

interface Sum {
  count: number;
  ms: number;
  maxMs: number;
}
let sums: Record<string, Sum> = {};

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
    const s = (sums[kind] ??= { count: 0, ms: 0, maxMs: 0 });
    s.count++;
    s.ms += entry.duration;
    if (entry.duration > s.maxMs) s.maxMs = entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  const m = process.memoryUsage();
  const mb = (n: number): number => Math.round((n / 1048576) * 10) / 10;
  process.stderr.write(
    `GC-REPORT ${JSON.stringify({ gc: sums, rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) })}\n`,
  );
  sums = {};
});
