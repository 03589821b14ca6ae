import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadFailure, ThreadLost, ThreadTimeout, WorkerClient } from '../../src/runtime/worker-client.ts';
import type { EchoRequest } from '../support/echo-thread.ts';

// The worker lifecycle the PDF, tokenizer and JSON threads share (src/runtime/worker-client.ts),
// against a thread that takes 600 ms to start.

describe('WorkerClient', () => {
  const client = new WorkerClient<EchoRequest, string>(new URL('../support/echo-thread.ts', import.meta.url));
  after(() => client.close());

  test("answers calls by id, concurrently; a deadline shorter than the thread's start still holds (it runs from ready)", async () => {
    const [a, b] = await Promise.all([client.call({ op: 'echo', text: 'a' }, [], 400), client.call({ op: 'echo', text: 'b' })]);
    assert.deepEqual([a, b], ['a', 'b']);
    assert.equal(client.started, 1);
  });

  test('what the handler throws rejects its call only', async () => {
    await assert.rejects(
      client.call({ op: 'throw', text: 'boom' }),
      (err: unknown) => err instanceof ThreadFailure && err.message === 'boom',
    );
    assert.equal(await client.call({ op: 'echo', text: 'still here' }), 'still here');
    assert.equal(client.started, 1);
  });

  test('past its deadline a call rejects with ThreadTimeout, the others in flight with ThreadLost, and the next call gets a fresh thread', async () => {
    const started = client.started;
    const [spun, bystander] = await Promise.allSettled([
      client.call({ op: 'spin', ms: 5_000 }, [], 100),
      client.call({ op: 'echo', text: 'queued behind the spin' }),
    ]);
    assert.ok(spun.status === 'rejected' && spun.reason instanceof ThreadTimeout, String((spun as PromiseRejectedResult).reason));
    assert.ok(bystander.status === 'rejected' && bystander.reason instanceof ThreadLost);
    assert.equal(await client.call({ op: 'echo', text: 'fresh' }), 'fresh');
    assert.equal(client.started, started + 1);
  });

  test('close rejects the calls in flight', async () => {
    const pending = assert.rejects(
      client.call({ op: 'spin', ms: 2_000 }),
      (err: unknown) => err instanceof ThreadLost && err.reason === 'it was closed',
    );
    await client.close();
    await pending;
  });
});
