import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChatStreamEncoder } from './encode-chat-stream.ts';
import type { ChatResponseMeta } from './encode-chat-response.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

const META: ChatResponseMeta = {
  id: 'gen-1',
  created: 1770000000,
  model: 'openai/gpt-4o',
  provider: 'openai',
  excludeReasoning: false,
};
const USAGE = { input: 30, cacheRead: 10, cacheWrite: 0, output: 12, reasoning: 4 };

/** Splits SSE text into its data payloads, checking the chat framing on the way. */
function parseSse(text: string): unknown[] {
  assert.ok(text.endsWith('\n\n'), 'every event ends with a blank line');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((event) => {
      assert.ok(event.startsWith('data: '), `data-only events: ${event}`);
      assert.equal(event.includes('\n'), false, 'one line per event');
      const data = event.slice(6);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}

function run(meta: ChatResponseMeta, parts: StreamPart[], cost?: number): string {
  const enc = new ChatStreamEncoder(meta);
  let out = enc.start();
  for (const p of parts) out += enc.push(p);
  return out + enc.end(cost);
}

const COMMON = {
  id: 'gen-1',
  object: 'chat.completion.chunk',
  created: 1770000000,
  model: 'openai/gpt-4o',
  provider: 'openai',
  system_fingerprint: null,
};
const choice = (delta: object, finish: string | null = null, native: string | null = null) => ({
  ...COMMON,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, native_finish_reason: native }],
});

describe('ChatStreamEncoder', () => {
  it('encodes a full sequence: role, reasoning, text, parallel tool calls, finish, usage, [DONE]', () => {
    const text = run(
      META,
      [
        { type: 'stream-start', id: 'up-1', model: 'gpt-4o-2024' },
        { type: 'reasoning-delta', text: 'Hmm' },
        { type: 'reasoning-signature', signature: 'sig' },
        { type: 'text-delta', text: 'Checking "both"\n' },
        { type: 'text-delta', text: '' },
        { type: 'tool-call-start', index: 1, id: 'call_a', name: 'weather' },
        { type: 'tool-call-start', index: 2, id: 'call_b', name: 'time' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', index: 2, argumentsDelta: '{}' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '"Paris"}' },
        { type: 'tool-call-end', index: 1 },
        { type: 'tool-call-end', index: 2 },
        { type: 'usage', usage: USAGE },
        { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_use' } },
      ],
      0.0004,
    );

    assert.deepEqual(parseSse(text), [
      choice({ role: 'assistant', content: '' }),
      choice({ reasoning: 'Hmm' }),
      choice({ content: 'Checking "both"\n' }),
      choice({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      choice({}, 'tool_calls', 'tool_use'),
      {
        ...COMMON,
        choices: [],
        usage: {
          prompt_tokens: 30,
          completion_tokens: 12,
          total_tokens: 42,
          prompt_tokens_details: { cached_tokens: 10, cache_write_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 4 },
          cache_read_input_tokens: 10,
          cache_creation_input_tokens: 0,
          reasoning_tokens: 4,
          cost: 0.0004,
        },
      },
      '[DONE]',
    ]);
  });

  it("carries the cited URLs in the finish chunk's delta", () => {
    const citations = ['https://x.com/a/status/1', 'https://example.com/b'];
    const events = parseSse(
      run(META, [
        { type: 'text-delta', text: 'News.' },
        { type: 'finish', reason: { unified: 'stop', raw: 'stop', citations } },
      ]),
    );
    assert.deepEqual(events[2], choice({ citations }, 'stop', 'stop'));
  });

  it('drops reasoning when excluded', () => {
    const text = run({ ...META, excludeReasoning: true }, [
      { type: 'reasoning-delta', text: 'secret' },
      { type: 'text-delta', text: 'hi' },
      { type: 'finish', reason: { unified: 'stop', raw: 'stop' } },
    ]);
    assert.equal(text.includes('secret'), false);
    const events = parseSse(text);
    assert.deepEqual(events[1], choice({ content: 'hi' }));
  });

  it('always ends with a usage chunk, zero when no usage arrived', () => {
    const enc = new ChatStreamEncoder(META);
    const events = parseSse(enc.end());
    assert.deepEqual(events, [
      {
        ...COMMON,
        choices: [],
        usage: {
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
      '[DONE]',
    ]);
  });

  it('returns nothing for parts with no chat field, and deltas of unknown calls', () => {
    const enc = new ChatStreamEncoder(META);
    assert.equal(enc.push({ type: 'stream-start' }), '');
    assert.equal(enc.push({ type: 'reasoning-redacted', data: 'x' }), '');
    assert.equal(enc.push({ type: 'tool-call-delta', index: 9, argumentsDelta: '{}' }), '');
    assert.equal(enc.push({ type: 'usage', usage: USAGE }), '');
  });

  it('renders an error as a data line holding the error record', () => {
    const enc = new ChatStreamEncoder(META);
    const err = new GatewayError('provider_error', 'Upstream reset', { metadata: { provider_name: 'openai' } });
    const expected = [
      { error: { message: 'Upstream reset', type: 'provider_error', code: 'provider_error', metadata: { provider_name: 'openai' } } },
    ];
    assert.deepEqual(parseSse(enc.error(err)), expected);
    assert.deepEqual(parseSse(enc.push({ type: 'error', error: err })), expected);
  });

  it('escapes model and id safely into the shared head', () => {
    const text = run({ ...META, id: 'a"b', model: 'x\ny' }, [{ type: 'text-delta', text: '\u2028' }]);
    const events = parseSse(text) as Array<{ id: string; model: string }>;
    assert.equal(events[0]!.id, 'a"b');
    assert.equal(events[1]!.model, 'x\ny');
  });
});

describe('ChatStreamEncoder: generated audio and images', () => {
  it('sends audio pieces as delta.audio and each image as delta.images', () => {
    const events = parseSse(
      run(META, [
        { type: 'audio-delta', id: 'audio_1', transcript: 'Hi ' },
        { type: 'audio-delta', transcript: 'there.' },
        { type: 'audio-delta', data: 'UklGRg==' },
        { type: 'audio-delta', expiresAt: 1770003600 },
        { type: 'audio-delta', data: '', transcript: '' },
        { type: 'audio-delta', data: 'AAAA', format: 'pcm16' },
        { type: 'image-output', url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'finish', reason: { unified: 'stop', raw: 'stop' } },
        { type: 'usage', usage: { ...USAGE, audioOutput: 20 } },
      ]),
    );
    assert.deepEqual(events.slice(1, 7), [
      choice({ audio: { id: 'audio_1', transcript: 'Hi ' } }),
      choice({ audio: { transcript: 'there.' } }),
      choice({ audio: { data: 'UklGRg==' } }),
      choice({ audio: { expires_at: 1770003600 } }),
      choice({ audio: { data: 'AAAA', format: 'pcm16' } }),
      choice({ images: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }),
    ]);
    const usage = (events.at(-2) as { usage: { completion_tokens_details: { audio_tokens?: number } } }).usage;
    assert.equal(usage.completion_tokens_details.audio_tokens, 20);
  });
});
