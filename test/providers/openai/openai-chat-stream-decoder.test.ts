import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamPart } from '../../../src/canonical/stream-part.ts';
import { SseParser } from '../../../src/providers/sse/parse-sse.ts';
import { OpenAIChatStreamDecoder } from '../../../src/providers/openai/openai-chat-stream-decoder.ts';
import { testEndpoint } from './openai-test-helpers.ts';

// Edge cases of OpenAI-compatible servers that the emulator does not play; the common
// paths are covered over HTTP in openai-adapter.test.ts.

function decode(events: Array<string | { event: string; data: string }>, opts: { end?: boolean } = {}): StreamPart[] {
  const parts: StreamPart[] = [];
  const decoder = new OpenAIChatStreamDecoder(testEndpoint(), (p) => parts.push(p));
  for (const e of events) {
    if (typeof e === 'string') decoder.onEvent({ event: null, data: e });
    else decoder.onEvent(e);
  }
  if (opts.end !== false) decoder.end();
  return parts;
}

const chunk = (delta: object, finish: string | null = null, extra: object = {}): string =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });

describe('OpenAIChatStreamDecoder', () => {
  it('emits stream-start once, skips empty content and closes cleanly on [DONE]', () => {
    const parts = decode([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'a' }),
      chunk({ content: 'b' }),
      chunk({}, 'stop'),
      '[DONE]',
    ]);
    assert.deepEqual(parts, [
      { type: 'stream-start', id: 'c1', model: 'm' },
      { type: 'text-delta', text: 'a' },
      { type: 'text-delta', text: 'b' },
      { type: 'finish', reason: { unified: 'stop', raw: 'stop' } },
    ]);
  });

  it('starts a tool call on its first fragment and streams its arguments by index', () => {
    const parts = decode([
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    ]);
    assert.deepEqual(parts.slice(1), [
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'f' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'g' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"y"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":1}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: ':2}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_calls' } },
    ]);
  });

  it('numbers tool calls by appearance even when upstream indexes do not start at 0', () => {
    const parts = decode([
      chunk({ tool_calls: [{ index: 3, id: 'x', function: { name: 'f', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    assert.deepEqual(parts[1], { type: 'tool-call-start', index: 0, id: 'x', name: 'f' });
  });

  it('copes with tool-call fragments that carry no index', () => {
    const parts = decode([
      chunk({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"p":' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const starts = parts.filter((p) => p.type === 'tool-call-start');
    const deltas = parts.filter((p) => p.type === 'tool-call-delta');
    assert.deepEqual(
      starts.map((p) => p.index),
      [0, 1],
    );
    assert.deepEqual(deltas, [
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"p":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
    ]);
  });

  it('says tool_calls when a server finishes tool calls with stop, keeping the raw value', () => {
    const parts = decode([chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }), chunk({}, 'stop')]);
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: { unified: 'tool_calls', raw: 'stop' } });
  });

  it('holds usage until the end and emits only the last one', () => {
    const usage = (n: number) => ({ usage: { prompt_tokens: 5, completion_tokens: n, total_tokens: 5 + n } });
    const parts = decode([
      chunk({ content: 'a' }, null, usage(1)),
      chunk({ content: 'b' }, null, usage(2)),
      chunk({}, 'stop', usage(3)),
      '[DONE]',
    ]);
    const usages = parts.filter((p) => p.type === 'usage');
    assert.equal(usages.length, 1);
    assert.equal(usages[0]!.usage.output, 3);
    assert.equal(parts.at(-1)!.type, 'usage');
  });

  it('finishes on [DONE] without a finish_reason', () => {
    const parts = decode([chunk({ content: 'a' }), '[DONE]']);
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: { unified: 'stop', raw: null } });
  });

  it('emits an error when the stream ends with neither a finish_reason nor [DONE]', () => {
    const parts = decode([
      chunk({ content: 'a' }),
      chunk({ tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{' } }] }),
    ]);
    assert.deepEqual(
      parts.slice(2).map((p) => p.type),
      ['tool-call-start', 'tool-call-delta', 'tool-call-end', 'error'],
    );
    const err = parts.at(-1)!;
    assert.ok(err.type === 'error');
    assert.equal(err.error.code, 'provider_error');
    assert.equal(err.error.message, 'OpenAI: upstream stream ended before completion');
    assert.equal(err.error.metadata?.provider_name, 'openai');
  });

  it('emits nothing at all for an empty stream but the error', () => {
    const parts = decode([]);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['error'],
    );
  });

  it('treats `event: error` as an error even without an error key', () => {
    const parts = decode([chunk({ content: 'a' }), { event: 'error', data: '{"message":"overloaded"}' }]);
    assert.equal(parts.at(-1)!.type, 'error');
    assert.match((parts.at(-1) as { error: Error }).error.message, /overloaded/);
  });

  it('ignores everything after an error or after [DONE]', () => {
    const afterError = decode(['{bad', chunk({ content: 'a' }), '[DONE]']);
    assert.deepEqual(
      afterError.map((p) => p.type),
      ['error'],
    );
    const afterDone = decode([chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'late' })]);
    assert.deepEqual(
      afterDone.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish'],
    );
  });

  it('rejects a data line that is JSON but not an object', () => {
    const parts = decode(['42']);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['error'],
    );
  });

  it('ignores choices other than the first and content after the finish', () => {
    const parts = decode([
      JSON.stringify({
        id: 'c',
        choices: [
          { index: 0, delta: { content: 'mine' } },
          { index: 1, delta: { content: 'other' } },
        ],
      }),
      chunk({}, 'stop'),
      chunk({ content: 'after' }),
      '[DONE]',
    ]);
    assert.deepEqual(
      parts.filter((p) => p.type === 'text-delta').map((p) => p.text),
      ['mine'],
    );
  });

  it('reads Mistral-style content arrays and refusals as text, reasoning from either field', () => {
    const parts = decode([
      chunk({ reasoning: 'r1' }),
      chunk({ reasoning_content: 'r2' }),
      chunk({
        content: [
          { type: 'text', text: 'x' },
          { type: 'thinking', thinking: [] },
        ],
      }),
      chunk({ refusal: 'I cannot.' }),
      chunk({}, 'stop'),
    ]);
    assert.deepEqual(parts.slice(1, 5), [
      { type: 'reasoning-delta', text: 'r1' },
      { type: 'reasoning-delta', text: 'r2' },
      { type: 'text-delta', text: 'x' },
      { type: 'text-delta', text: 'I cannot.' },
    ]);
  });

  it('works behind the shared SSE parser with events split at any byte', () => {
    const wire =
      [chunk({ role: 'assistant', content: '' }), chunk({ content: 'héllo ✓' }), chunk({}, 'stop')].map((d) => `data: ${d}\n\n`).join('') +
      'data: [DONE]\n\n';
    for (const size of [1, 7, 64]) {
      const parts: StreamPart[] = [];
      const decoder = new OpenAIChatStreamDecoder(testEndpoint(), (p) => parts.push(p));
      const parser = new SseParser((ev) => decoder.onEvent(ev));
      for (let i = 0; i < wire.length; i += size) parser.push(wire.slice(i, i + size));
      parser.end();
      decoder.end();
      assert.deepEqual(
        parts.map((p) => p.type),
        ['stream-start', 'text-delta', 'finish'],
        `size ${size}`,
      );
    }
  });
});
