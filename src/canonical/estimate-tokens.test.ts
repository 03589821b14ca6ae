import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateRequestTokens, estimateTextTokens, IMAGE_TOKENS_HIGH, IMAGE_TOKENS_LOW } from './estimate-tokens.ts';
import type { CanonicalRequest, Message } from './request.ts';

function request(messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { models: [], messages, sampling: {}, stream: false, extra: {}, ...extra };
}

function user(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function assertBetween(value: number, low: number, high: number, what: string): void {
  assert.ok(value >= low && value <= high, `${what}: ${value} not in [${low}, ${high}]`);
}

test('empty text is zero tokens', () => {
  assert.equal(estimateTextTokens(''), 0);
});

test('English prose lands near one token per word, ~4 characters a token', () => {
  const sentence = 'The quick brown fox jumps over the lazy dog.'; // 10 tokens in cl100k
  assertBetween(estimateTextTokens(sentence), 8, 13, 'pangram');
  const paragraph =
    'Switchyard routes each request to a provider that can serve the model, falls back when one fails, and bills the account for the tokens used. '.repeat(
      20,
    );
  const tokens = estimateTextTokens(paragraph);
  assertBetween(paragraph.length / tokens, 3, 6, 'characters per token');
});

test('code and JSON cost more tokens per character than prose', () => {
  const code = 'function add(a: number, b: number): number {\n  return a + b;\n}\n';
  const json = JSON.stringify({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
  });
  assertBetween(code.length / estimateTextTokens(code), 1.5, 4.5, 'code characters per token');
  assertBetween(json.length / estimateTextTokens(json), 1.5, 4.5, 'JSON characters per token');
});

test('long digit strings split in groups, long identifiers cost several tokens', () => {
  assertBetween(estimateTextTokens('123456789012'), 3, 5, 'digits');
  assertBetween(estimateTextTokens('internationalizationOfEverything'), 4, 10, 'long identifier');
  assert.equal(estimateTextTokens('hello'), 1);
});

test('CJK and emoji cost about a token per character', () => {
  assertBetween(estimateTextTokens('你好世界'), 3, 8, 'CJK');
  assertBetween(estimateTextTokens('😀😀'), 2, 6, 'emoji');
  assertBetween(estimateTextTokens('Привет, как дела?'), 5, 14, 'Cyrillic');
});

test('appending text never lowers the estimate', () => {
  const samples = ['Hello, world! ', 'const x = {"a": [1, 2, 3]};\n    ', 'naïve café — “quoted” 😀 你好 ', '\n\n\t  1234567 a_b_c ...'];
  for (const sample of samples) {
    const text = sample.repeat(3);
    let previous = 0;
    for (let i = 0; i <= text.length; i++) {
      const tokens = estimateTextTokens(text.slice(0, i));
      assert.ok(tokens >= previous, `estimate dropped at ${i} of ${JSON.stringify(text)}`);
      previous = tokens;
    }
  }
});

test('more text means more tokens, roughly in proportion', () => {
  const one = estimateTextTokens('lorem ipsum dolor sit amet ');
  const ten = estimateTextTokens('lorem ipsum dolor sit amet '.repeat(10));
  assertBetween(ten / one, 8, 12, 'ratio');
});

test('a request costs its text plus per-message framing', () => {
  const text = 'What is the capital of France?';
  const single = estimateRequestTokens(request([user(text)]));
  assert.ok(single > estimateTextTokens(text));
  assertBetween(single, estimateTextTokens(text) + 2, estimateTextTokens(text) + 12, 'one message');
  const two = estimateRequestTokens(request([{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, user(text)]));
  assert.ok(two > single);
});

test('each added message, tool or schema raises the request estimate', () => {
  const base = request([user('Plan a trip')]);
  const withTools = request(base.messages, {
    tools: [
      {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
  });
  const withCall = request([
    ...base.messages,
    { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: '{"temperature": 21, "sky": "clear"}' }] },
  ]);
  const withSchema = request(base.messages, {
    responseFormat: { type: 'json_schema', name: 'trip', schema: { type: 'object', properties: { days: { type: 'integer' } } } },
  });
  const baseTokens = estimateRequestTokens(base);
  assert.ok(estimateRequestTokens(withTools) > baseTokens + 10);
  assert.ok(estimateRequestTokens(withCall) > baseTokens + 10);
  assert.ok(estimateRequestTokens(withSchema) > baseTokens);
});

test('images cost a fixed amount by detail', () => {
  const base = estimateRequestTokens(request([user('Describe this')]));
  const low = estimateRequestTokens(
    request([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe this' },
          { type: 'image', url: 'https://example.com/a.png', detail: 'low' },
        ],
      },
    ]),
  );
  const high = estimateRequestTokens(
    request([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe this' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
    ]),
  );
  assert.equal(low - base, IMAGE_TOKENS_LOW);
  assert.equal(high - base, IMAGE_TOKENS_HIGH);
});

test('files and audio are priced by size', () => {
  const payload = (bytes: number): string => Buffer.alloc(bytes, 7).toString('base64');
  const file = (data: string, mediaType: string): Message => ({ role: 'user', content: [{ type: 'file', data, mediaType }] });
  const smallPdf = estimateRequestTokens(request([file(payload(16_000), 'application/pdf')]));
  const bigPdf = estimateRequestTokens(request([file(payload(160_000), 'application/pdf')]));
  assert.ok(bigPdf > smallPdf * 5);
  const text = estimateRequestTokens(request([file(payload(16_000), 'text/plain')]));
  assert.ok(text > smallPdf, 'text files carry more tokens per byte than PDFs');
  assertBetween(text, 3_000, 5_000, 'a 16 kB text file');
  // Ten seconds of 16 kHz 16-bit mono WAV.
  const audio = estimateRequestTokens(request([{ role: 'user', content: [{ type: 'audio', data: payload(320_000), format: 'wav' }] }]));
  assertBetween(audio, 100, 500, 'ten seconds of audio');
});

test('the estimate is deterministic', () => {
  const req = request([user('Same input, same count.')]);
  assert.equal(estimateRequestTokens(req), estimateRequestTokens(structuredClone(req)));
});
