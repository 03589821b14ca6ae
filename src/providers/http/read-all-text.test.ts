import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PassThrough } from 'node:stream';
import { readAllText } from './read-all-text.ts';

// A non-streamed answer's body, read whole: the text, or the failure the connection had —
// never a promise left pending, whatever state the body is in when reading starts.

test('the chunks joined, a character split across two chunks whole; the first chunk announced once', async () => {
  const body = new PassThrough();
  let firsts = 0;
  const text = readAllText(body, () => firsts++);
  const euro = Buffer.from('€', 'utf8');
  body.write(Buffer.concat([Buffer.from('{"a":"'), euro.subarray(0, 1)]));
  body.write(Buffer.concat([euro.subarray(1), Buffer.from('"}')]));
  body.end();
  assert.equal(await text, '{"a":"€"}');
  assert.equal(firsts, 1);
});

test('an error mid-body rejects with that error', async () => {
  const body = new PassThrough();
  const text = readAllText(body);
  body.write('{"a":');
  body.destroy(new Error('socket hang up'));
  await assert.rejects(text, /socket hang up/);
});

test('a body closed before its end rejects as a premature close', async () => {
  const body = new PassThrough();
  const text = readAllText(body);
  body.write('{"a":');
  body.destroy();
  await assert.rejects(text, (err: NodeJS.ErrnoException) => err.code === 'ERR_STREAM_PREMATURE_CLOSE');
});

test('a body destroyed before reading began rejects at once (its events are past), with its error when it had one', async () => {
  const aborted = new PassThrough();
  aborted.on('error', () => {}); // the error was seen by whoever aborted it
  aborted.destroy(new Error('This operation was aborted'));
  await new Promise((resolve) => aborted.once('close', resolve));
  await assert.rejects(readAllText(aborted), /aborted/);
  const closed = new PassThrough();
  closed.destroy();
  await new Promise((resolve) => closed.once('close', resolve));
  await assert.rejects(readAllText(closed), (err: NodeJS.ErrnoException) => err.code === 'ERR_STREAM_PREMATURE_CLOSE');
});

test('an empty body is the empty text', async () => {
  const body = new PassThrough();
  const text = readAllText(body);
  body.end();
  assert.equal(await text, '');
});
