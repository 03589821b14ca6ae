import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { simAdapter } from './sim-adapter.ts';
import { readSimPace } from './pace-sim-stream.ts';
import { runSim, simEndpoint, simRequest, userSays } from './sim-fixtures.test-util.ts';

const req = simRequest([userSays('Pace yourself')]);

test('pace options default to no delay and ignore junk', () => {
  assert.deepEqual(readSimPace(undefined), { firstChunkDelayMs: 0, chunkDelayMs: 0 });
  assert.deepEqual(readSimPace({ chunk_delay_ms: -5, first_chunk_delay_ms: '100' }), { firstChunkDelayMs: 0, chunkDelayMs: 0 });
  assert.deepEqual(readSimPace({ chunk_delay_ms: 2, first_chunk_delay_ms: 30 }), { firstChunkDelayMs: 30, chunkDelayMs: 2 });
});

test('with no delay every part is emitted synchronously, before generate returns', () => {
  const parts: StreamPart[] = [];
  const done = simAdapter.generate(req, simEndpoint(), (p) => parts.push(p), new AbortController().signal);
  assert.equal(parts.at(-1)?.type, 'usage');
  return done;
});

// The paced tests run on mocked timers: time moves only when the test ticks it, so each
// assertion says exactly when a part may appear, whatever the machine's load.

/** Lets the promise chains a tick woke run to their next wait. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function paced(options: Record<string, unknown>, signal = new AbortController().signal) {
  const parts: StreamPart[] = [];
  const done = simAdapter.generate(req, simEndpoint(options), (p) => parts.push(p), signal);
  return { parts, done };
}

test('chunk_delay_ms spaces the deltas out: each later delta waits the delay, and no longer', async (t) => {
  const fast = await runSim(req);
  const deltas = fast.parts.filter((p) => p.type === 'text-delta').length;
  assert.ok(deltas >= 3, `enough deltas to see the pace (${deltas})`);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const delay = 3;
  const run = paced({ chunk_delay_ms: delay });
  const count = () => run.parts.filter((p) => p.type === 'text-delta').length;
  await settle();
  assert.equal(count(), 1, 'the first delta waits for nothing');
  for (let n = 2; n <= deltas; n++) {
    t.mock.timers.tick(delay - 1);
    await settle();
    assert.equal(count(), n - 1, `delta ${n} waits the whole delay`);
    t.mock.timers.tick(1);
    await settle();
    assert.equal(count(), n, `delta ${n} comes when the delay is up`);
  }
  await run.done;
  assert.deepEqual(run.parts, fast.parts);
});

test('first_chunk_delay_ms delays the first part after stream-start; the rest follows without delay', async (t) => {
  const fast = await runSim(req);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const run = paced({ first_chunk_delay_ms: 40 });
  await settle();
  assert.deepEqual(
    run.parts.map((p) => p.type),
    ['stream-start'],
  );
  t.mock.timers.tick(39);
  await settle();
  assert.equal(run.parts.length, 1, 'nothing before the delay is up');
  t.mock.timers.tick(1);
  await run.done;
  assert.deepEqual(run.parts, fast.parts, 'then every part, with no further timer');
});

test('abort stops the stream: nothing more is emitted and generate resolves', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  const done = simAdapter.generate(
    req,
    simEndpoint({ chunk_delay_ms: 5 }),
    (p) => {
      parts.push(p);
      if (parts.length === 4) controller.abort();
    },
    controller.signal,
  );
  while (parts.length < 4) {
    t.mock.timers.tick(5);
    await settle();
  }
  await done;
  assert.equal(parts.length, 4);
  t.mock.timers.tick(10_000);
  await settle();
  assert.equal(parts.length, 4, 'no emits after abort');
});

test('abort during a long wait resolves at once, with no time passing', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const controller = new AbortController();
  const run = paced({ first_chunk_delay_ms: 10_000 }, controller.signal);
  await settle();
  assert.deepEqual(
    run.parts.map((p) => p.type),
    ['stream-start'],
  );
  controller.abort();
  await run.done;
  assert.deepEqual(
    run.parts.map((p) => p.type),
    ['stream-start'],
  );
});

test('abort also stops an unpaced stream, and an aborted signal emits nothing', async () => {
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  await simAdapter.generate(
    req,
    simEndpoint(),
    (p) => {
      parts.push(p);
      if (parts.length === 2) controller.abort();
    },
    controller.signal,
  );
  assert.equal(parts.length, 2);
  const none: StreamPart[] = [];
  await simAdapter.generate(req, simEndpoint(), (p) => none.push(p), AbortSignal.abort());
  assert.equal(none.length, 0);
});
