import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnChunkHead, plainContentOf } from './openai-chunk-fast-lane.ts';

const HEAD =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":';
const chunk = (delta: string, rest = ''): string => `${HEAD}${delta},"logprobs":null,"finish_reason":null}]${rest}}`;

test("the head is learned from a chunk in OpenAI's shape, and not from another shape", () => {
  assert.equal(learnChunkHead(chunk('{"role":"assistant","content":""}')), HEAD);
  assert.equal(
    learnChunkHead('{"id":"x","choices":[{"index":0,"delta":{}}],"usage":{"prompt_tokens":1}}'),
    null,
    'keys out of order or missing',
  );
  assert.equal(
    learnChunkHead(
      '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","usage":{"a":1},"choices":[{"index":0,"delta":{}}]}',
    ),
    null,
    'usage before choices',
  );
  assert.equal(learnChunkHead('{"error":{"message":"x"}}'), null);
});

test("a plain content chunk is read by comparison, with or without a null usage and OpenAI's obfuscation", () => {
  assert.equal(plainContentOf(chunk('{"content":"Hello"}'), HEAD), 'Hello');
  assert.equal(plainContentOf(chunk('{"content":"café ☕"}', ',"usage":null'), HEAD), 'café ☕');
  assert.equal(plainContentOf(chunk('{"content":" world"}', ',"usage":null,"obfuscation":"aB3-_x"'), HEAD), ' world');
  assert.equal(plainContentOf(chunk('{"content":""}'), HEAD), '');
});

test('anything the full decode would read differently is left to it', () => {
  const refused: Array<[string, string]> = [
    ['an escaped quote', chunk('{"content":"say \\"hi\\""}')],
    ['a backslash escape', chunk('{"content":"a\\nb"}')],
    ['a unicode escape', chunk('{"content":"\\u00e9"}')],
    ['a second delta field', chunk('{"content":"a","refusal":"b"}')],
    ['reasoning', chunk('{"reasoning_content":"a"}')],
    ['a finish reason', `${HEAD}{"content":"a"},"logprobs":null,"finish_reason":"stop"}]}`],
    ['a usage object', chunk('{"content":"a"}', ',"usage":{"prompt_tokens":1}')],
    ['another id', chunk('{"content":"a"}').replace('chatcmpl-1', 'chatcmpl-2')],
    ['a second choice', `${HEAD}{"content":"a"},"logprobs":null,"finish_reason":null},{"index":1,"delta":{"content":"b"}}]}`],
    ['trailing text', `${chunk('{"content":"a"}')} `],
    ['a cut chunk', `${HEAD}{"content":"abc`],
  ];
  for (const [what, data] of refused) assert.equal(plainContentOf(data, HEAD), null, what);
});
