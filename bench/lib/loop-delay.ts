// The benchmark's side of bench/loop-delay-preload.ts: reset and read a target's
// event-loop delay over its IPC channel.

import type { ChildProcess } from 'node:child_process';

export interface LoopDelay {
  /** The longest the event loop was blocked (one sample: the time between two timer turns). */
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  count: number;
  resolutionMs: number;
}

const ASK_TIMEOUT_MS = 10_000;

function ask(proc: ChildProcess, what: 'reset' | 'read'): Promise<unknown> {
  if (proc.connected !== true) return Promise.reject(new Error('no IPC channel to the process'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.off('message', onMessage);
      reject(new Error(`no answer to the loop-delay ${what} within ${ASK_TIMEOUT_MS} ms (is bench/loop-delay-preload.ts preloaded?)`));
    }, ASK_TIMEOUT_MS);
    const onMessage = (message: unknown): void => {
      const answer = (message as { loopDelay?: unknown } | null)?.loopDelay;
      if (answer === undefined || (what === 'read') !== (typeof answer === 'object')) return;
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(answer);
    };
    proc.on('message', onMessage);
    proc.send({ loopDelay: what });
  });
}

export async function resetLoopDelay(proc: ChildProcess): Promise<void> {
  await ask(proc, 'reset');
}

export async function readLoopDelay(proc: ChildProcess): Promise<LoopDelay> {
  return (await ask(proc, 'read')) as LoopDelay;
}
