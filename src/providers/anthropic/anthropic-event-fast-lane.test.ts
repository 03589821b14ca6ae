import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainTextDeltaOf } from './anthropic-event-fast-lane.ts';

const delta = (index: string, text: string): string =>
  `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":"${text}"}}`;

test('a plain text delta is read by comparison, its block index with it', () => {
  const out = { index: -1 };
  assert.equal(plainTextDeltaOf(delta('0', 'Hello'), out), 'Hello');
  assert.equal(out.index, 0);
  assert.equal(plainTextDeltaOf(delta('12', 'café ☕'), out), 'café ☕');
  assert.equal(out.index, 12);
});

test('anything the full decode would read differently is left to it', () => {
  const out = { index: -1 };
  const refused: Array<[string, string]> = [
    ['an escaped quote', delta('0', 'say \\"hi\\"')],
    ['a newline escape', delta('0', 'a\\nb')],
    ['a thinking delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}'],
    ['no index', '{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}'],
    ['a negative index', delta('-1', 'a')],
    ['a huge index', delta('12345678', 'a')],
    ['another key', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":"b"}}'],
    ['another event', '{"type":"message_delta","delta":{"stop_reason":"end_turn"}}'],
  ];
  for (const [what, data] of refused) assert.equal(plainTextDeltaOf(data, out), null, what);
  assert.equal(out.index, -1, 'a refused event leaves the index alone');
});
