// bench/lib/thread-cpu.ts: a process's CPU split by kind of thread, read from /proc. A worker
// thread that burns CPU shows under "worker threads", the main thread under "event loop".

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { perResponseUs, threadCpuSeconds } from '../../bench/lib/thread-cpu.ts';

const BURN = `
const { readFileSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
const ticks = () => { const s = readFileSync('/proc/thread-self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
let x = 0;
while (ticks() < 5) for (let i = 0; i < 1e5; i++) x += i; // 50 ms of this thread's own CPU
parentPort.postMessage(x);
parentPort.once('message', () => process.exit(0));
`;

test(
  'a worker thread\'s CPU is counted as "worker threads", apart from the event loop',
  { skip: existsSync('/proc/thread-self/stat') ? false : 'needs Linux /proc' },
  async () => {
    const before = threadCpuSeconds(process.pid);
    const worker = new Worker(BURN, { eval: true });
    await new Promise((resolve) => worker.once('message', resolve));
    const after = threadCpuSeconds(process.pid); // read while the thread is still alive
    worker.postMessage('exit');
    await new Promise((resolve) => worker.once('exit', resolve));
    const split = new Map(perResponseUs(before, after, 1));
    assert.ok(split.get('worker threads')! >= 50_000, `the worker's 50 ms counted: ${[...split].join(' ')}`);
    assert.ok(after.has('event loop'));
  },
);
