import { setTimeout as sleep } from 'node:timers/promises';
import { serveThread } from '../../src/runtime/serve-thread.ts';

// A thread for test/runtime/worker-client.test.ts: it takes 600 ms to start (as pdf.js
// takes to load), then echoes, throws, or spins the CPU for as long as it is asked.

export type EchoRequest = { op: 'echo'; text: string } | { op: 'throw'; text: string } | { op: 'spin'; ms: number };

await sleep(600);
serveThread<EchoRequest, string>((m) => {
  if (m.op === 'throw') throw new Error(m.text);
  if (m.op === 'spin') {
    const until = Date.now() + m.ms;
    while (Date.now() < until);
    return 'spun';
  }
  return m.text;
});
