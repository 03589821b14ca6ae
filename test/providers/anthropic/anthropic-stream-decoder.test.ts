import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import type { StreamPart } from '../../../src/canonical/stream-part.ts';
import { SseParser } from '../../../src/providers/sse/parse-sse.ts';
import { AnthropicStreamDecoder } from '../../../src/providers/anthropic/anthropic-stream-decoder.ts';
import { anthropicEndpoint } from './anthropic-test-helpers.ts';

// Edge cases of Anthropic streams (and proxies in front of Anthropic) that the emulator does
// not play; the common paths are covered over HTTP in anthropic-adapter.test.ts.

type Event = { type: string; [key: string]: unknown };

function decode(events: Array<Event | string>, opts: { end?: boolean; named?: boolean } = {}): StreamPart[] {
  const parts: StreamPart[] = [];
  const decoder = new AnthropicStreamDecoder(anthropicEndpoint(), (p) => parts.push(p));
  for (const e of events) {
    if (typeof e === 'string') decoder.onEvent({ event: null, data: e });
    else decoder.onEvent({ event: opts.named === false ? null : e.type, data: JSON.stringify(e) });
  }
  if (opts.end !== false) decoder.end();
  return parts;
}

const messageStart = (usage: object = { input_tokens: 10, output_tokens: 1 }): Event => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-x', stop_reason: null, usage },
});
const blockStart = (index: number, block: object): Event => ({ type: 'content_block_start', index, content_block: block });
const delta = (index: number, d: object): Event => ({ type: 'content_block_delta', index, delta: d });
const blockStop = (index: number): Event => ({ type: 'content_block_stop', index });
const messageDelta = (stop: string | null, usage: object = { output_tokens: 5 }): Event => ({
  type: 'message_delta',
  delta: { stop_reason: stop, stop_sequence: null },
  usage,
});
const messageStop: Event = { type: 'message_stop' };

describe('AnthropicStreamDecoder', () => {
  it('ignores pings, citations, unknown events and unknown delta types', () => {
    const parts = decode([
      messageStart(),
      { type: 'ping' },
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'Per the doc' }),
      delta(0, { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } }),
      { type: 'content_block_magic', index: 0 },
      delta(0, { type: 'sparkle_delta', sparkle: true }),
      blockStop(0),
      messageDelta('end_turn'),
      messageStop,
    ]);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
  });

  it("dispatches on the data's type when a proxy drops the event names", () => {
    const parts = decode(
      [
        messageStart(),
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'hi' }),
        blockStop(0),
        messageDelta('end_turn'),
        messageStop,
      ],
      { named: false },
    );
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
  });

  it('keeps a signature or tool input sent whole in the start event', () => {
    const parts = decode([
      messageStart(),
      blockStart(0, { type: 'thinking', thinking: 'All at once.', signature: 'EqQBwhole' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_w', name: 'f', input: { a: 1 } }),
      blockStop(1),
      messageDelta('tool_use'),
      messageStop,
    ]);
    const { response } = foldStreamParts(parts);
    assert.deepEqual(response.content, [
      { type: 'reasoning', text: 'All at once.', signature: 'EqQBwhole' },
      { type: 'tool-call', id: 'toolu_w', name: 'f', arguments: '{"a":1}' },
    ]);
  });

  it('gives a signature-only thinking block (display omitted) an empty reasoning part', () => {
    const parts = decode([
      messageStart(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'signature_delta', signature: 'EqQBonly' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      delta(1, { type: 'text_delta', text: 'ok' }),
      blockStop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    assert.deepEqual(foldStreamParts(parts).response.content, [
      { type: 'reasoning', text: '', signature: 'EqQBonly' },
      { type: 'text', text: 'ok' },
    ]);
  });

  it('keeps two thinking blocks apart, each with its signature (interleaved thinking)', () => {
    const parts = decode([
      messageStart(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'first' }),
      delta(0, { type: 'signature_delta', signature: 's1' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }),
      delta(1, { type: 'input_json_delta', partial_json: '' }),
      blockStop(1),
      blockStart(2, { type: 'thinking', thinking: '', signature: '' }),
      delta(2, { type: 'thinking_delta', thinking: 'second' }),
      delta(2, { type: 'signature_delta', signature: 's2' }),
      blockStop(2),
      messageDelta('tool_use'),
      messageStop,
    ]);
    assert.deepEqual(foldStreamParts(parts).response.content, [
      { type: 'reasoning', text: 'first', signature: 's1' },
      { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}' },
      { type: 'reasoning', text: 'second', signature: 's2' },
    ]);
  });

  it('skips server-tool blocks and their deltas', () => {
    const parts = decode([
      messageStart(),
      blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"query":"x"}' }),
      blockStop(0),
      blockStart(1, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }),
      blockStop(1),
      blockStart(2, { type: 'text', text: '' }),
      delta(2, { type: 'text_delta', text: 'Found it.' }),
      blockStop(2),
      messageDelta('end_turn'),
      messageStop,
    ]);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
  });

  it('merges cumulative usage: input from message_start, counts from the last message_delta', () => {
    const parts = decode([
      messageStart({ input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 0, output_tokens: 1 }),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'x' }),
      blockStop(0),
      messageDelta(null, { output_tokens: 3, input_tokens: null }),
      messageDelta('end_turn', { output_tokens: 9, output_tokens_details: { thinking_tokens: 4 } }),
      messageStop,
    ]);
    const usage = parts.at(-1)!;
    assert.ok(usage.type === 'usage');
    assert.deepEqual(
      { ...usage.usage, raw: undefined },
      { input: 120, cacheRead: 100, cacheWrite: 0, output: 9, reasoning: 4, raw: undefined },
    );
  });

  it('emits an error, after closing open tool calls, when the stream ends before any stop reason', () => {
    const parts = decode([
      messageStart(),
      blockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"a"' }),
    ]);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'error'],
    );
    const err = parts.at(-1)!;
    assert.ok(err.type === 'error');
    assert.equal(err.error.code, 'provider_error');
    assert.equal(err.error.message, 'Anthropic: upstream stream ended before completion');
  });

  it('emits nothing but the error for an empty stream', () => {
    assert.deepEqual(
      decode([]).map((p) => p.type),
      ['error'],
    );
  });

  it('ignores everything after message_stop or after an error', () => {
    const afterStop = decode([messageStart(), messageDelta('end_turn'), messageStop, blockStart(0, { type: 'text', text: 'late' })]);
    assert.deepEqual(
      afterStop.map((p) => p.type),
      ['stream-start', 'finish', 'usage'],
    );
    const afterError = decode(['{bad', messageStart(), messageStop]);
    assert.deepEqual(
      afterError.map((p) => p.type),
      ['error'],
    );
    assert.deepEqual(
      decode(['42']).map((p) => p.type),
      ['error'],
    );
  });

  it('treats `event: error` as an error even when the data has no type', () => {
    const parts: StreamPart[] = [];
    const decoder = new AnthropicStreamDecoder(anthropicEndpoint(), (p) => parts.push(p));
    decoder.onEvent({ event: 'message_start', data: JSON.stringify(messageStart()) });
    decoder.onEvent({ event: 'error', data: '{"error":{"type":"api_error","message":"Internal server error"}}' });
    decoder.end();
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'error'],
    );
    const err = parts[1]!;
    assert.ok(err.type === 'error');
    assert.equal(err.error.message, 'Anthropic returned HTTP 500: Internal server error');
    assert.equal(err.error.retryable, true);
  });

  it('works behind the shared SSE parser with events split at any byte', () => {
    const events = [
      messageStart(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'héllo ✓' }),
      delta(0, { type: 'signature_delta', signature: 'EqQB==' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }),
      delta(1, { type: 'input_json_delta', partial_json: '' }),
      delta(1, { type: 'input_json_delta', partial_json: '{"q":"€"}' }),
      blockStop(1),
      messageDelta('tool_use'),
      messageStop,
    ];
    const wire = events.map((e) => `event: ${e.type}\r\ndata: ${JSON.stringify(e)}\r\n\r\n`).join('');
    for (const size of [1, 7, 64]) {
      const parts: StreamPart[] = [];
      const decoder = new AnthropicStreamDecoder(anthropicEndpoint(), (p) => parts.push(p));
      const parser = new SseParser((ev) => decoder.onEvent(ev));
      for (let i = 0; i < wire.length; i += size) parser.push(wire.slice(i, i + size));
      parser.end();
      decoder.end();
      assert.deepEqual(
        foldStreamParts(parts).response.content,
        [
          { type: 'reasoning', text: 'héllo ✓', signature: 'EqQB==' },
          { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{"q":"€"}' },
        ],
        `size ${size}`,
      );
    }
  });
});
