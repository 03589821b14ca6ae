import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactHeap } from './compact-heap.ts';

test('compactHeap gives back the heap that garbage had grown, and leaves no `gc` function to other code', () => {
  // Tens of MB of objects, all kept until they are dropped below: they grow the heap and reach the old generation.
  let kept: unknown[] = [];
  for (let i = 0; i < 200_000; i++) kept.push({ i, s: `item ${i}`, a: [i, i + 1, i + 2] });
  const grown = getHeapStatistics().total_heap_size;
  kept = [];
  compactHeap();
  const after = getHeapStatistics();
  assert.ok(after.total_heap_size < grown - 10 * 2 ** 20, `heap ${grown} → ${after.total_heap_size} bytes`);
  assert.equal(kept.length, 0);
  assert.equal((globalThis as { gc?: unknown }).gc, undefined);
  assert.equal(runInNewContext('typeof gc'), 'undefined', 'a context made afterwards has no gc either');
  compactHeap(); // a second call reuses the collector
});
