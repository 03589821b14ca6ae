import assert from 'node:assert/strict';
import { test } from 'node:test';
import { threadCpuUsage } from 'node:process';
import { shrinkHeapWhenIdle } from './idle-heap-shrink.ts';

// The heap is shrunk once a busy spell of the main thread is over, and only then.

function burn(ms: number): void {
  const t0 = threadCpuUsage();
  while ((threadCpuUsage(t0).user + threadCpuUsage(t0).system) / 1000 < ms);
}

test('after a busy spell, once quiet, the shrink runs once; a quiet process never shrinks', async () => {
  let shrinks = 0;
  let done!: () => void;
  const shrunk = new Promise<void>((resolve) => (done = resolve));
  // Ticks of 50 ms: busy above 10 ms of the main thread's CPU, quiet under 10 (this test's generous margin on a loaded machine).
  const stop = shrinkHeapWhenIdle(
    () => {
      shrinks++;
      done();
    },
    { tickMs: 50, busyShare: 0.4, quietShare: 0.2, quietTicks: 2 },
  );
  try {
    // Quiet from the start: ticks pass without a shrink (nothing was busy).
    await new Promise<void>((resolve) => {
      let ticks = 0;
      const t = setInterval(() => ++ticks === 6 && (clearInterval(t), resolve()), 50);
    });
    assert.equal(shrinks, 0);
    // Busy for a few ticks, then quiet: one shrink.
    for (let i = 0; i < 4; i++) {
      burn(45);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await shrunk;
    assert.equal(shrinks, 1);
  } finally {
    stop();
  }
});
