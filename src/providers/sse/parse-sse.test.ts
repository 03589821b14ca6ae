import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SSE_EVENT_CHARS, SseEventTooLargeError, SseParser, type SseEvent } from './parse-sse.ts';

function parse(chunks: string[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((ev) => out.push(ev));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const STREAM =
  'event: message_start\ndata: {"a":1}\n\n: a comment\ndata: line one\ndata: line two\n\ndata:no-space\n\nevent: ping\ndata: {}\n\n';
const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":1}' },
  { event: null, data: 'line one\nline two' },
  { event: null, data: 'no-space' },
  { event: 'ping', data: '{}' },
];

test('events, comments, multi-line data and fields without a space', () => {
  assert.deepEqual(parse([STREAM]), EXPECTED);
});

test('the same events whatever the chunking, down to one character at a time', () => {
  for (const size of [1, 2, 3, 7, 13]) {
    const chunks: string[] = [];
    for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
    assert.deepEqual(parse(chunks), EXPECTED, `chunks of ${size}`);
  }
});

test('\\r\\n and lone \\r line endings, including \\r\\n split across chunks (Gemini frames with \\r\\n\\r\\n)', () => {
  const crlf = STREAM.replaceAll('\n', '\r\n');
  assert.deepEqual(parse([crlf]), EXPECTED);
  for (let cut = 1; cut < crlf.length; cut++) assert.deepEqual(parse([crlf.slice(0, cut), crlf.slice(cut)]), EXPECTED, `cut at ${cut}`);
  assert.deepEqual(parse([STREAM.replaceAll('\n', '\r')]), EXPECTED);
});

test('a last event without its blank line is still delivered at the end', () => {
  assert.deepEqual(parse(['data: [DONE]']), [{ event: null, data: '[DONE]' }]);
});

test('unknown fields are ignored; a field name that merely starts like data is not data', () => {
  assert.deepEqual(parse(['id: 7\nretry: 100\ndatum: x\ndata: y\n\n']), [{ event: null, data: 'y' }]);
});

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

test('a long line arriving in many small chunks is delivered whole, and so are the events after it', () => {
  const big = 'x'.repeat(200_000);
  const stream = `data: ${big}\n\ndata: after\n\n`;
  const out: SseEvent[] = [];
  const p = new SseParser((ev) => out.push(ev), { maxEventChars: 300_000 });
  for (const c of chunked(stream, 1000)) p.push(c);
  p.end();
  assert.deepEqual(out, [
    { event: null, data: big },
    { event: null, data: 'after' },
  ]);
});

test('an event longer than the cap throws SseEventTooLargeError while its line is still arriving', () => {
  const events: SseEvent[] = [];
  const p = new SseParser((ev) => events.push(ev), { maxEventChars: 1000 });
  p.push('data: small\n\n');
  p.push(`data: ${'y'.repeat(600)}`);
  assert.throws(
    () => p.push('y'.repeat(600)),
    (err: unknown) => err instanceof SseEventTooLargeError && err.limit === 1000,
  );
  assert.deepEqual(events, [{ event: null, data: 'small' }], 'the events before it were delivered');
});

test('the cap counts every data line of one event, and starts again with the next event', () => {
  const ok = new SseParser(() => {}, { maxEventChars: 100 });
  for (let i = 0; i < 50; i++) ok.push(`data: ${'z'.repeat(60)}\n\n`); // many events, each under the cap
  const p = new SseParser(() => {}, { maxEventChars: 100 });
  p.push(`data: ${'z'.repeat(60)}\n`);
  assert.throws(() => p.push(`data: ${'z'.repeat(60)}\n`), SseEventTooLargeError);
});

test('comment lines do not count toward the event, but one over-long line does', () => {
  const out: SseEvent[] = [];
  const p = new SseParser((ev) => out.push(ev), { maxEventChars: 100 });
  for (let i = 0; i < 10; i++) p.push(`: ${'k'.repeat(50)}\n`);
  p.push('data: fine\n\n');
  assert.deepEqual(out, [{ event: null, data: 'fine' }]);
  assert.throws(() => p.push(`: ${'k'.repeat(150)}`), SseEventTooLargeError);
});

test('the default cap is 16 MiB of characters', () => {
  assert.equal(MAX_SSE_EVENT_CHARS, 16 * 1024 * 1024);
});
