// Preloaded into a benchmarked process (`node --import ./bench/gc-observer.ts ...`): sums
// garbage-collection pauses by kind through perf_hooks and, on SIGUSR2, writes the sums
// so far and process.memoryUsage() to stderr as one JSON line, then starts the sums
// afresh (so a caller can measure one phase). bench/memory-probe.ts reads it.
// It also counts the bytes the heap allocated in the phase, exactly (issue 29, seventh
// round): v8.GCProfiler gives the heap's used size before and after every collection, and
// whatever the heap grew by between one collection's end and the next one's start (and up to
// the report) was allocated, in any space.

import { PerformanceObserver, constants } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

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

interface GcStat {
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}
let profiler = new GCProfiler();
let usedAtStart = getHeapStatistics().used_heap_size;
profiler.start();

/** Bytes allocated on the heap since the last call (or the start), and the collections in between. */
function allocatedSinceLast(): { allocatedBytes: number; collections: number } {
  const usedNow = getHeapStatistics().used_heap_size;
  const stats = (profiler.stop()?.statistics ?? []) as GcStat[];
  let allocated = 0;
  let after = usedAtStart;
  for (const s of stats) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - after;
    after = s.afterGC.heapStatistics.usedHeapSize;
  }
  allocated += usedNow - after;
  profiler = new GCProfiler();
  usedAtStart = getHeapStatistics().used_heap_size;
  profiler.start();
  return { allocatedBytes: allocated, collections: stats.length };
}

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
  const alloc = allocatedSinceLast();
  const m = process.memoryUsage();
  const mb = (n: number): number => Math.round((n / 1048576) * 10) / 10;
  process.stderr.write(
    `GC-REPORT ${JSON.stringify({ gc: sums, ...alloc, rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) })}\n`,
  );
  sums = {};
});
