import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { encodeMessagesResponse } from './encode-messages-response.ts';
import { mapMessagesStopReason } from './map-messages-stop-reason.ts';

const meta: ResponseMeta = { id: 'gen-1-abc', created: 1700000000, model: 'acme/mock-1', provider: 'local', excludeReasoning: false };

function answer(over: Partial<CanonicalResponse>): CanonicalResponse {
  return { content: [], finish: { unified: 'stop', raw: 'stop' }, usage: null, ...over };
}

describe('encodeMessagesResponse', () => {
  it("a text answer has every field of Anthropic's Message", () => {
    const body = encodeMessagesResponse(
      answer({
        content: [{ type: 'text', text: 'Hello!' }],
        usage: { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 },
      }),
      meta,
    );
    assert.deepEqual(body, {
      id: 'gen-1-abc',
      type: 'message',
      role: 'assistant',
      model: 'acme/mock-1',
      provider: 'local',
      content: [{ type: 'text', text: 'Hello!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    });
  });

  it('reports the provider that served and, when known, the cost in USD as usage.cost', () => {
    const usage = { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 };
    const body = encodeMessagesResponse(answer({ content: [{ type: 'text', text: 'Hi' }], usage }), {
      ...meta,
      provider: 'anthropic',
      cost: 0.000125,
    });
    assert.equal(body.provider, 'anthropic');
    assert.deepEqual(body.usage, {
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 5,
      cost: 0.000125,
    });
    assert.equal('cost' in encodeMessagesResponse(answer({ usage }), meta).usage, false, 'no cost when billing did not settle one');
    assert.equal(encodeMessagesResponse(answer({}), { ...meta, cost: 0 }).usage.cost, 0);
  });

  it('input_tokens excludes cache reads and writes, which are reported apart; thinking tokens are broken out', () => {
    const body = encodeMessagesResponse(
      answer({ usage: { input: 1000, cacheRead: 600, cacheWrite: 300, output: 80, reasoning: 50 } }),
      meta,
    );
    assert.deepEqual(body.usage, {
      input_tokens: 100,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 600,
      output_tokens: 80,
      output_tokens_details: { thinking_tokens: 50 },
    });
  });

  it('thinking (with signature), redacted thinking and tool_use blocks, in order; input is the parsed arguments', () => {
    const body = encodeMessagesResponse(
      answer({
        content: [
          { type: 'reasoning', text: 'Let me think.', signature: 'sig-1' },
          { type: 'redacted-reasoning', data: 'REDACTED' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'tool-call', id: 'toolu_2', name: 'noop', arguments: '' },
        ],
        finish: { unified: 'tool_calls', raw: 'tool_calls' },
      }),
      meta,
    );
    assert.deepEqual(body.content, [
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'REDACTED' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'toolu_2', name: 'noop', input: {} },
    ]);
    assert.equal(body.stop_reason, 'tool_use');
  });

  it('reasoning without a signature still has the signature field; arguments that are not a JSON object become {}', () => {
    const body = encodeMessagesResponse(
      answer({
        content: [
          { type: 'reasoning', text: 'hm' },
          { type: 'tool-call', id: 't', name: 'f', arguments: '{"broken' },
        ],
      }),
      meta,
    );
    assert.deepEqual(body.content, [
      { type: 'thinking', thinking: 'hm', signature: '' },
      { type: 'tool_use', id: 't', name: 'f', input: {} },
    ]);
  });

  it('omitted thinking (excludeReasoning) keeps signed blocks with empty text and drops unsigned ones', () => {
    const body = encodeMessagesResponse(
      answer({
        content: [
          { type: 'reasoning', text: 'secret', signature: 'sig' },
          { type: 'reasoning', text: 'unsigned' },
          { type: 'text', text: 'ok' },
        ],
      }),
      { ...meta, excludeReasoning: true },
    );
    assert.deepEqual(body.content, [
      { type: 'thinking', thinking: '', signature: 'sig' },
      { type: 'text', text: 'ok' },
    ]);
  });

  it('stop_sequence names the sequence that stopped the answer', () => {
    const body = encodeMessagesResponse(
      answer({ content: [{ type: 'text', text: 'a' }], finish: { unified: 'stop', raw: 'stop', stopSequence: 'END' } }),
      meta,
    );
    assert.equal(body.stop_reason, 'stop_sequence');
    assert.equal(body.stop_sequence, 'END');
  });
});

describe('mapMessagesStopReason', () => {
  const f = (unified: FinishReason['unified'], raw: string | null = null, stopSequence?: string): FinishReason =>
    stopSequence === undefined ? { unified, raw } : { unified, raw, stopSequence };

  it('maps the unified reasons of other providers', () => {
    assert.equal(mapMessagesStopReason(f('stop', 'stop'), false), 'end_turn');
    assert.equal(mapMessagesStopReason(f('stop', 'stop', '###'), false), 'stop_sequence');
    assert.equal(mapMessagesStopReason(f('length', 'length'), false), 'max_tokens');
    assert.equal(mapMessagesStopReason(f('tool_calls', 'tool_calls'), true), 'tool_use');
    assert.equal(mapMessagesStopReason(f('content_filter', 'SAFETY'), false), 'refusal');
    assert.equal(mapMessagesStopReason(f('error', null), false), 'end_turn');
    assert.equal(mapMessagesStopReason(null, false), 'end_turn');
  });

  it("keeps an Anthropic upstream's own value, also those without a unified twin", () => {
    assert.equal(mapMessagesStopReason(f('stop', 'pause_turn'), false), 'pause_turn');
    assert.equal(mapMessagesStopReason(f('length', 'model_context_window_exceeded'), false), 'model_context_window_exceeded');
  });

  it('tool calls that ended with a plain stop are tool_use, so clients run the tools', () => {
    assert.equal(mapMessagesStopReason(f('stop', 'stop'), true), 'tool_use');
    assert.equal(mapMessagesStopReason(null, true), 'tool_use');
  });
});
