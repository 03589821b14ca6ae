import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser, type SseEvent } from './parse-sse.ts';

function parse(chunks: string[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((ev) => out.push(ev));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const STREAM = 'event: message_start\ndata: {"a":1}\n\n: a comment\ndata: line one\ndata: line two\n\ndata:no-space\n\nevent: ping\ndata: {}\n\n';
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
