import { parentPort } from 'node:worker_threads';
import type { ThreadAnswer, ThreadCall } from './worker-client.ts';

/**
 * The thread's side of a WorkerClient: says it is ready (call it once the thread's modules
 * are loaded: the client's deadlines run from here), then answers each call with
 * `handle`'s result (awaited), or with the message of what it threw. Calls are handled as
 * they come, concurrently when `handle` awaits.
 */
export function serveThread<Req, Reply>(handle: (payload: Req) => Reply | Promise<Reply>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveThread runs in a worker thread');
  port.on('message', (m: ThreadCall<Req>) => {
    void (async () => {
      let answer: ThreadAnswer<Reply>;
      try {
        answer = { id: m.id, payload: await handle(m.payload) };
      } catch (err) {
        answer = { id: m.id, failure: (err as Error)?.message ?? String(err) };
      }
      port.postMessage(answer);
    })();
  });
  port.postMessage({ ready: true } satisfies ThreadAnswer<Reply>);
}
