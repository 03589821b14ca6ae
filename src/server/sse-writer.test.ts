import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SseWriter } from './sse-writer.ts';

/** The parts of a Node response the writer uses, recording every call. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  head: { status: number; headers: Record<string, string | number> } | null = null;
  writes: string[] = [];
  ended: string | null = null;
  /** What `write` returns: false means the socket buffer is full. */
  accepting = true;
  writeHead(status: number, headers: Record<string, string | number>): this {
    this.head = { status, headers };
    return this;
  }
  write(text: string): boolean {
    this.writes.push(text);
    return this.accepting;
  }
  end(text: string): this {
    this.ended = text;
    return this;
  }
}

function writer(): { res: FakeResponse; sse: SseWriter } {
  const res = new FakeResponse();
  return { res, sse: new SseWriter(res as unknown as ServerResponse) };
}

const tick = () => new Promise<void>((r) => process.nextTick(r));

test('start sends 200 with the SSE headers and the extra ones', () => {
  const { res, sse } = writer();
  assert.equal(sse.started, false);
  sse.start({ 'x-generation-id': 'gen-1' });
  assert.equal(sse.started, true);
  assert.equal(res.head?.status, 200);
  assert.equal(res.head?.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.equal(res.head?.headers['cache-control'], 'no-cache');
  assert.equal(res.head?.headers['x-generation-id'], 'gen-1');
});

test('events written in the same tick go out in one socket write', async () => {
  const { res, sse } = writer();
  sse.start({});
  sse.write('data: 1\n\n');
  sse.write('');
  sse.write('data: 2\n\n');
  assert.deepEqual(res.writes, [], 'nothing before the tick ends');
  await tick();
  assert.deepEqual(res.writes, ['data: 1\n\ndata: 2\n\n']);
});

test('end sends what is pending with the last text in one call', () => {
  const { res, sse } = writer();
  sse.start({});
  sse.write('data: 1\n\n');
  sse.end('data: [DONE]\n\n');
  assert.equal(res.ended, 'data: 1\n\ndata: [DONE]\n\n');
  assert.deepEqual(res.writes, []);
});

test('a client that is gone gets nothing more, and end does not throw', async () => {
  const { res, sse } = writer();
  sse.start({});
  res.destroyed = true;
  sse.write('data: 1\n\n');
  await tick();
  assert.deepEqual(res.writes, []);
  sse.end('data: [DONE]\n\n');
  assert.equal(res.ended, null);
  assert.equal(sse.waitForDrain(), null);
});

test('sendJson answers a plain JSON error with its status when nothing was streamed', () => {
  const { res, sse } = writer();
  sse.sendJson(503, { 'retry-after': '1' }, { error: { code: 'storage_unavailable' } });
  assert.equal(sse.started, true);
  assert.equal(res.head?.status, 503);
  assert.equal(res.head?.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.head?.headers['retry-after'], '1');
  assert.equal(res.ended, '{"error":{"code":"storage_unavailable"}}');
  assert.equal(res.head?.headers['content-length'], Buffer.byteLength(res.ended));
});

test('backpressure: a full socket buffer makes waitForDrain wait for drain, or for the client to go', async () => {
  const { res, sse } = writer();
  sse.start({});
  assert.equal(sse.waitForDrain(), null, 'nothing written, nothing to wait for');
  res.accepting = false;
  sse.write('data: big\n\n');
  const waiting = sse.waitForDrain();
  assert.ok(waiting instanceof Promise, 'the pending text is flushed and the full buffer noticed');
  assert.deepEqual(res.writes, ['data: big\n\n']);
  let drained = false;
  void waiting.then(() => (drained = true));
  await tick();
  assert.equal(drained, false);
  res.emit('drain');
  await waiting;
  assert.equal(res.listenerCount('drain') + res.listenerCount('close'), 0, 'listeners removed');

  sse.write('data: more\n\n');
  const again = sse.waitForDrain();
  assert.ok(again instanceof Promise);
  res.emit('close');
  await again;
});
