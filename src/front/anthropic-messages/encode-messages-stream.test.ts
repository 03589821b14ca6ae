import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { estimateRequestTokens } from '../../canonical/estimate-tokens.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { MessagesStreamEncoder } from './encode-messages-stream.ts';

const meta: ResponseMeta = { id: 'gen-1-abc', created: 1700000000, model: 'acme/mock-1', provider: 'local', excludeReasoning: false };
const req: CanonicalRequest = {
  models: [{ model: 'acme/mock-1' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather like in Oslo today?' }] }],
  sampling: {},
  stream: true,
  extra: {},
};

interface Event {
  event: string;
  data: any;
}

/** Runs parts through an encoder and parses the SSE text, checking every event's framing. */
function encode(parts: StreamPart[], m: ResponseMeta = meta): Event[] {
  const enc = new MessagesStreamEncoder(m, req);
  let text = enc.start();
  for (const p of parts) text += enc.push(p);
  text += enc.end();
  return parseEvents(text);
}

function parseEvents(text: string): Event[] {
  assert.ok(text.endsWith('\n\n'), 'the stream ends with a complete event');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      assert.equal(lines.length, 2, `one event line and one data line: ${block}`);
      assert.ok(lines[0]!.startsWith('event: ') && lines[1]!.startsWith('data: '), block);
      const event = lines[0]!.slice(7);
      const data = JSON.parse(lines[1]!.slice(6));
      assert.equal(data.type, event, 'the data type is the event name');
      return { event, data };
    });
}

/** The block structure as `start:<type>@i`, `delta:<type>@i`, `stop@i`. */
function shape(events: Event[]): string[] {
  return events.map(({ event, data }) => {
    if (event === 'content_block_start') return `start:${data.content_block.type}@${data.index}`;
    if (event === 'content_block_delta') return `delta:${data.delta.type}@${data.index}`;
    if (event === 'content_block_stop') return `stop@${data.index}`;
    return event;
  });
}

describe('MessagesStreamEncoder', () => {
  it('a text answer: message_start (input estimate, output placeholder), one text block, message_delta, message_stop', () => {
    const events = encode([
      { type: 'stream-start', id: 'up-1' },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' world' },
      { type: 'finish', reason: { unified: 'stop', raw: 'stop' } },
      { type: 'usage', usage: { input: 25, cacheRead: 0, cacheWrite: 0, output: 15, reasoning: 0 } },
    ]);
    assert.deepEqual(shape(events), [
      'message_start',
      'start:text@0',
      'delta:text_delta@0',
      'delta:text_delta@0',
      'stop@0',
      'message_delta',
      'message_stop',
    ]);
    assert.deepEqual(events[0]!.data.message, {
      id: 'gen-1-abc',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'acme/mock-1',
      provider: 'local',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: estimateRequestTokens(req), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    });
    assert.deepEqual(events[1]!.data.content_block, { type: 'text', text: '' });
    assert.deepEqual(events[2]!.data.delta, { type: 'text_delta', text: 'Hello' });
    assert.deepEqual(events[5]!.data, {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 15 },
    });
  });

  it('thinking, then text, then two tool calls: blocks in index order, the signature right before the thinking stop', () => {
    const events = encode([
      { type: 'reasoning-delta', text: 'Let me ' },
      { type: 'reasoning-delta', text: 'think.' },
      { type: 'reasoning-signature', signature: 'EsEC-sig' },
      { type: 'text-delta', text: 'Checking both.' },
      { type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-start', index: 1, id: 'toolu_2', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Rome"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_calls' } },
    ]);
    assert.deepEqual(shape(events), [
      'message_start',
      'start:thinking@0',
      'delta:thinking_delta@0',
      'delta:thinking_delta@0',
      'delta:signature_delta@0',
      'stop@0',
      'start:text@1',
      'delta:text_delta@1',
      'stop@1',
      'start:tool_use@2',
      'delta:input_json_delta@2',
      'delta:input_json_delta@2',
      'stop@2',
      'start:tool_use@3',
      'delta:input_json_delta@3',
      'stop@3',
      'message_delta',
      'message_stop',
    ]);
    assert.deepEqual(events[1]!.data.content_block, { type: 'thinking', thinking: '', signature: '' });
    assert.deepEqual(events[4]!.data.delta, { type: 'signature_delta', signature: 'EsEC-sig' });
    assert.deepEqual(events[9]!.data.content_block, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} });
    const args = events
      .filter((e) => e.data.index === 2 && e.data.delta)
      .map((e) => e.data.delta.partial_json)
      .join('');
    assert.equal(args, '{"city":"Oslo"}');
    assert.equal(events.at(-2)!.data.delta.stop_reason, 'tool_use');
  });

  it('redacted thinking arrives whole in content_block_start and stops at once', () => {
    const events = encode([
      { type: 'reasoning-redacted', data: 'ENCRYPTED' },
      { type: 'text-delta', text: 'Hi' },
    ]);
    assert.deepEqual(shape(events), [
      'message_start',
      'start:redacted_thinking@0',
      'stop@0',
      'start:text@1',
      'delta:text_delta@1',
      'stop@1',
      'message_delta',
      'message_stop',
    ]);
    assert.deepEqual(events[1]!.data.content_block, { type: 'redacted_thinking', data: 'ENCRYPTED' });
  });

  it('thinking without a signature (an OpenAI-format upstream) closes when the text starts, with no signature_delta', () => {
    const events = encode([
      { type: 'reasoning-delta', text: 'hm' },
      { type: 'text-delta', text: 'ok' },
    ]);
    assert.deepEqual(shape(events), [
      'message_start',
      'start:thinking@0',
      'delta:thinking_delta@0',
      'stop@0',
      'start:text@1',
      'delta:text_delta@1',
      'stop@1',
      'message_delta',
      'message_stop',
    ]);
  });

  it('omitted thinking (excludeReasoning) sends the signed block without its text', () => {
    const events = encode(
      [
        { type: 'reasoning-delta', text: 'secret' },
        { type: 'reasoning-signature', signature: 'sig' },
        { type: 'text-delta', text: 'ok' },
      ],
      { ...meta, excludeReasoning: true },
    );
    assert.deepEqual(shape(events), [
      'message_start',
      'start:thinking@0',
      'delta:signature_delta@0',
      'stop@0',
      'start:text@1',
      'delta:text_delta@1',
      'stop@1',
      'message_delta',
      'message_stop',
    ]);
    assert.ok(!JSON.stringify(events).includes('secret'));
  });

  it('usage in message_delta is cumulative, with cache tokens apart from input_tokens', () => {
    const events = encode([
      { type: 'text-delta', text: 'x' },
      { type: 'usage', usage: { input: 1000, cacheRead: 800, cacheWrite: 100, output: 40, reasoning: 12 } },
      { type: 'finish', reason: { unified: 'length', raw: 'length' } },
    ]);
    const delta = events.at(-2)!.data;
    assert.deepEqual(delta.delta, { stop_reason: 'max_tokens', stop_sequence: null });
    assert.deepEqual(delta.usage, {
      input_tokens: 100,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 800,
      output_tokens: 40,
      output_tokens_details: { thinking_tokens: 12 },
    });
  });

  it('without upstream usage, message_delta repeats the input estimate', () => {
    const events = encode([{ type: 'text-delta', text: 'x' }]);
    assert.equal(events.at(-2)!.data.usage.input_tokens, estimateRequestTokens(req));
    assert.equal(events.at(-2)!.data.usage.output_tokens, 0);
  });

  it('the final message_delta has the cost in USD when known, and no cost field otherwise', () => {
    const enc = new MessagesStreamEncoder(meta, req);
    let text = enc.start() + enc.push({ type: 'text-delta', text: 'x' });
    text += enc.push({ type: 'usage', usage: { input: 25, cacheRead: 0, cacheWrite: 0, output: 15, reasoning: 0 } });
    text += enc.end(0.00042);
    const delta = parseEvents(text).at(-2)!.data;
    assert.deepEqual(delta.usage, {
      input_tokens: 25,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 15,
      cost: 0.00042,
    });
    assert.equal('cost' in encode([{ type: 'text-delta', text: 'x' }]).at(-2)!.data.usage, false);
  });

  it("usage known before start (primeUsage): message_start reports the upstream's input and cache tokens, not the estimate", () => {
    const upstream = { input: 1200, cacheRead: 900, cacheWrite: 250, output: 30, reasoning: 0 };
    const enc = new MessagesStreamEncoder(meta, req);
    enc.primeUsage(upstream);
    let text = enc.start();
    text += enc.push({ type: 'usage', usage: upstream });
    text += enc.push({ type: 'text-delta', text: 'Hi' });
    text += enc.end();
    const events = parseEvents(text);
    assert.deepEqual(events[0]!.data.message.usage, {
      input_tokens: 50,
      cache_creation_input_tokens: 250,
      cache_read_input_tokens: 900,
      output_tokens: 1,
    });
    assert.deepEqual(events.at(-2)!.data.usage, {
      input_tokens: 50,
      cache_creation_input_tokens: 250,
      cache_read_input_tokens: 900,
      output_tokens: 30,
    });
    // Primed alone (the held part not pushed again), the final usage is still the upstream's.
    const alone = new MessagesStreamEncoder(meta, req);
    alone.primeUsage(upstream);
    const aloneEvents = parseEvents(alone.start() + alone.push({ type: 'text-delta', text: 'Hi' }) + alone.end());
    assert.equal(aloneEvents.at(-2)!.data.usage.output_tokens, 30);
  });

  it('an error is an error event in the Anthropic envelope, sent once, and works before start()', () => {
    const enc = new MessagesStreamEncoder(meta, req);
    const err = new GatewayError('provider_error', 'upstream broke', { metadata: { provider_name: 'local' } });
    const text = enc.error(err);
    assert.deepEqual(parseEvents(text), [
      {
        event: 'error',
        data: {
          type: 'error',
          error: { type: 'provider_error', message: 'upstream broke', code: 'provider_error', metadata: { provider_name: 'local' } },
        },
      },
    ]);
    assert.equal(enc.error(err), '');
    assert.equal(enc.push({ type: 'text-delta', text: 'late' }), '');
    assert.equal(enc.end(), '');
  });

  it('an empty answer is still a well-formed message', () => {
    assert.deepEqual(shape(encode([{ type: 'finish', reason: { unified: 'stop', raw: null } }])), [
      'message_start',
      'message_delta',
      'message_stop',
    ]);
  });
});
