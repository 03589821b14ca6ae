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

test('chunk_delay_ms spaces the deltas out', async () => {
  const fast = await runSim(req);
  const deltas = fast.parts.filter((p) => p.type === 'text-delta').length;
  const delay = 3;
  const started = performance.now();
  const paced = await runSim(req, simEndpoint({ chunk_delay_ms: delay }));
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= (deltas - 1) * delay * 0.9, `took ${elapsed} ms for ${deltas} deltas`);
  assert.deepEqual(paced.parts, fast.parts);
});

test('first_chunk_delay_ms delays the first part after stream-start', async () => {
  const times: Array<{ type: string; at: number }> = [];
  const started = performance.now();
  await simAdapter.generate(req, simEndpoint({ first_chunk_delay_ms: 40 }), (p) => times.push({ type: p.type, at: performance.now() - started }), new AbortController().signal);
  assert.equal(times[0]?.type, 'stream-start');
  assert.ok(times[1]!.at - times[0]!.at >= 35, `stream-start at ${times[0]!.at} ms, first delta at ${times[1]!.at} ms`);
  assert.ok(times.at(-1)!.at - times[1]!.at < 30, 'the rest follows without delay');
});

test('abort stops the stream: nothing more is emitted and generate resolves', async () => {
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  await simAdapter.generate(req, simEndpoint({ chunk_delay_ms: 5 }), (p) => {
    parts.push(p);
    if (parts.length === 4) controller.abort();
  }, controller.signal);
  assert.equal(parts.length, 4);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(parts.length, 4, 'no emits after abort');
});

test('abort during a long wait resolves at once', async () => {
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  const started = performance.now();
  const done = simAdapter.generate(req, simEndpoint({ first_chunk_delay_ms: 10_000 }), (p) => parts.push(p), controller.signal);
  setTimeout(() => controller.abort(), 10);
  await done;
  assert.ok(performance.now() - started < 1_000);
  assert.deepEqual(parts.map((p) => p.type), ['stream-start']);
});

test('abort also stops an unpaced stream, and an aborted signal emits nothing', async () => {
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  await simAdapter.generate(req, simEndpoint(), (p) => {
    parts.push(p);
    if (parts.length === 2) controller.abort();
  }, controller.signal);
  assert.equal(parts.length, 2);
  const none: StreamPart[] = [];
  await simAdapter.generate(req, simEndpoint(), (p) => none.push(p), AbortSignal.abort());
  assert.equal(none.length, 0);
});
