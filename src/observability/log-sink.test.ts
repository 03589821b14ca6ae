import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LogSink } from './log-sink.ts';

/** A stream whose writes complete only when the test says (`release`), or fail with `code`. */
function stalledStream(): Writable & { written: string[]; release(): void; fail(code: string): void } {
  const callbacks: Array<(err?: Error | null) => void> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      (stream as any).written.push(chunk.toString());
      callbacks.push(cb);
    },
  }) as Writable & { written: string[]; release(): void; fail(code: string): void };
  stream.written = [];
  stream.release = () => {
    for (const cb of callbacks.splice(0)) cb();
  };
  stream.fail = (code) => {
    const err = Object.assign(new Error(code), { code });
    for (const cb of callbacks.splice(0)) cb(err);
  };
  return stream;
}

describe('LogSink', () => {
  it('writes the lines of one turn of the event loop in one write', async () => {
    const out = stalledStream();
    const sink = new LogSink(out);
    sink.write('a\n');
    sink.write('b\n');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out.written, ['a\nb\n']);
    out.release();
    await sink.flush(1_000);
    assert.equal(sink.dropped, 0);
  });

  it('batched: the lines of one batch go in one write, a full batch at once, the rest when its timer fires', async () => {
    const out = stalledStream();
    const wrote = (): Promise<void> =>
      new Promise((resolve) => {
        const original = out.write.bind(out);
        out.write = ((...args: Parameters<typeof original>) => {
          out.write = original;
          const r = original(...args);
          resolve();
          return r;
        }) as typeof out.write;
      });
    // A timer long enough that a loaded machine cannot fire it before the check below (one turn of the loop).
    const sink = new LogSink(out, { batchMs: 250, batchBytes: 8 });
    sink.write('a\n');
    sink.write('b\n');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out.written, [], 'not one write per turn of the event loop');
    sink.write('cccc\n'); // 9 bytes waiting: the batch is full
    assert.deepEqual(out.written, ['a\nb\ncccc\n']);
    out.release();
    const next = wrote();
    sink.write('d\n');
    await next; // the batch's timer
    assert.deepEqual(out.written, ['a\nb\ncccc\n', 'd\n']);
    out.release();
    await sink.flush(1_000);
    assert.equal(sink.dropped, 0);
  });

  it('drops and counts the lines beyond its bound while the reader does not read', async () => {
    const out = stalledStream();
    const sink = new LogSink(out, { maxQueuedBytes: 10, coalesce: false });
    for (let i = 0; i < 5; i++) sink.write('1234\n');
    assert.equal(sink.dropped, 3, 'two lines of five bytes fit in ten');
  });

  it('once the reader is gone (EPIPE), drops and counts every line, and never throws', async () => {
    const out = stalledStream();
    const sink = new LogSink(out, { coalesce: false });
    sink.write('a\n');
    out.fail('EPIPE');
    sink.write('b\n');
    sink.write('c\n');
    assert.equal(sink.brokenBy, 'EPIPE');
    assert.equal(sink.dropped, 3);
    await sink.flush(1_000); // returns at once: nothing can be written any more
  });

  it('flush gives a reader that never reads a bounded time, then drops what is left', async () => {
    const out = stalledStream();
    const sink = new LogSink(out, { coalesce: false });
    sink.write('a\n');
    sink.write('b\n');
    await sink.flush(20);
    assert.equal(sink.dropped, 2);
    sink.write('after the flush\n');
    assert.equal(sink.dropped, 3, 'a closed sink drops every later line');
  });
});
