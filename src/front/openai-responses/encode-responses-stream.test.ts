import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResponsesStreamEncoder } from './encode-responses-stream.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { foldStreamParts } from '../../canonical/fold-stream-parts.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

const META: ResponseMeta = {
  id: 'gen-1770000000-abc',
  created: 1770000000,
  model: 'acme/model-1',
  provider: 'acme',
  excludeReasoning: false,
};
const USAGE = { input: 20, cacheRead: 0, cacheWrite: 0, output: 9, reasoning: 3 };
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

type Event = Record<string, any> & { type: string; sequence_number: number };

/** Parses the SSE text back, checking the framing: `event:` line equal to `data.type`, one data line, blank line after. */
function parseEvents(text: string): Event[] {
  assert.ok(text.endsWith('\n\n'));
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      assert.equal(lines.length, 2, `two lines per event: ${block}`);
      assert.ok(lines[0]!.startsWith('event: ') && lines[1]!.startsWith('data: '), block);
      const data = JSON.parse(lines[1]!.slice(6)) as Event;
      assert.equal(lines[0]!.slice(7), data.type);
      return data;
    });
}

function run(parts: StreamPart[], opts: { meta?: ResponseMeta; cost?: number; fail?: GatewayError } = {}): Event[] {
  const enc = new ResponsesStreamEncoder(opts.meta ?? META);
  let out = enc.start();
  for (const p of parts) out += enc.push(p);
  out += opts.fail !== undefined ? enc.error(opts.fail) : enc.end(opts.cost);
  const events = parseEvents(out);
  // Sequence numbers count from 0 without gaps; exactly one terminal event, the last.
  assert.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  assert.equal(events.filter((e) => TERMINAL.has(e.type)).length, 1);
  assert.ok(TERMINAL.has(events[events.length - 1]!.type));
  return events;
}

const typesOf = (events: Event[]) => events.map((e) => e.type);

describe('ResponsesStreamEncoder', () => {
  it("a text answer: created, in_progress, the message item's events, completed with usage and cost", () => {
    const events = run(
      [
        { type: 'stream-start', id: 'up-1' },
        { type: 'text-delta', text: 'Hello' },
        { type: 'text-delta', text: '' },
        { type: 'text-delta', text: ' "world"' },
        { type: 'finish', reason: { unified: 'stop', raw: 'stop' } },
        { type: 'usage', usage: USAGE },
      ],
      { cost: 0.002 },
    );
    assert.deepEqual(typesOf(events), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const [created, , added, partAdded, d1, , textDone, partDone, itemDone, completed] = events;
    assert.equal(created!.response.id, 'resp_1770000000-abc');
    assert.equal(created!.response.status, 'in_progress');
    assert.deepEqual(created!.response.output, []);
    assert.equal(created!.response.usage, null);
    const id = 'msg_1770000000-abc_0';
    assert.deepEqual(added!.item, { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    assert.deepEqual(partAdded, {
      type: 'response.content_part.added',
      sequence_number: 3,
      item_id: id,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    assert.deepEqual(d1, {
      type: 'response.output_text.delta',
      sequence_number: 4,
      item_id: id,
      output_index: 0,
      content_index: 0,
      delta: 'Hello',
      logprobs: [],
    });
    assert.equal(textDone!.text, 'Hello "world"');
    assert.equal(partDone!.part.text, 'Hello "world"');
    assert.equal(itemDone!.item.status, 'completed');
    assert.equal(completed!.response.status, 'completed');
    assert.deepEqual(completed!.response.output, [itemDone!.item]);
    assert.equal(completed!.response.usage.input_tokens, 20);
    assert.equal(completed!.response.usage.total_tokens, 29);
    assert.equal(completed!.response.usage.cost, 0.002);
  });

  it('reasoning with a signature, then interleaved parallel function calls: indexes, ids and full arguments', () => {
    const events = run([
      { type: 'reasoning-delta', text: 'Two ' },
      { type: 'reasoning-delta', text: 'cities.' },
      { type: 'reasoning-signature', signature: 'SIG' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'weather' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":"Rome"}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_use' } },
    ]);
    assert.deepEqual(typesOf(events).slice(2), [
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const reasoningDone = events[8]!;
    assert.deepEqual(reasoningDone.item, {
      id: 'rs_1770000000-abc_0',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Two cities.' }],
      encrypted_content: 'SIG',
    });
    assert.deepEqual(events[9]!.item, {
      id: 'fc_1770000000-abc_1',
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: 'call_a',
      name: 'weather',
    });
    assert.equal(events[10]!.output_index, 2);
    assert.deepEqual([events[11]!.item_id, events[12]!.item_id], ['fc_1770000000-abc_1', 'fc_1770000000-abc_2']);
    // call_b ended first; call_a is closed by the finish, with all its arguments.
    assert.deepEqual(events[14]!, {
      type: 'response.function_call_arguments.done',
      sequence_number: 14,
      item_id: 'fc_1770000000-abc_2',
      output_index: 2,
      arguments: '{"city":"Rome"}',
      name: 'weather',
    });
    assert.equal(events[16]!.arguments, '{"city":"Oslo"}');
    const final = events[events.length - 1]!.response;
    assert.deepEqual(
      final.output.map((o: { id: string }) => o.id),
      ['rs_1770000000-abc_0', 'fc_1770000000-abc_1', 'fc_1770000000-abc_2'],
    );
  });

  it('a streamed answer and the whole answer to the same parts are the same output items', () => {
    const parts: StreamPart[] = [
      { type: 'stream-start' },
      { type: 'reasoning-delta', text: 'Hmm.' },
      { type: 'reasoning-signature', signature: 'S1' },
      { type: 'reasoning-redacted', data: 'R' },
      { type: 'reasoning-signature', signature: 'S2' },
      { type: 'text-delta', text: 'Let me check.' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'text-delta', text: 'And more.' },
      { type: 'finish', reason: { unified: 'stop', raw: null } },
      { type: 'usage', usage: USAGE },
    ];
    const streamed = run(parts);
    const whole = encodeResponsesResponse(foldStreamParts(parts).response, META);
    const final = streamed[streamed.length - 1]!.response;
    assert.deepEqual(final.output, whole.output);
    assert.deepEqual(final.usage, whole.usage);
    assert.deepEqual(typesOf(streamed).filter((t) => t === 'response.output_item.done').length, whole.output.length);
  });

  it('a length finish ends with response.incomplete and max_output_tokens, the open message incomplete', () => {
    const events = run([
      { type: 'text-delta', text: 'Once upon a' },
      { type: 'finish', reason: { unified: 'length', raw: 'max_tokens' } },
      { type: 'usage', usage: USAGE },
    ]);
    const last = events[events.length - 1]!;
    assert.equal(last.type, 'response.incomplete');
    assert.equal(last.response.status, 'incomplete');
    assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(last.response.output[0].status, 'incomplete');
    const filtered = run([{ type: 'finish', reason: { unified: 'content_filter', raw: 'refusal' } }]);
    assert.deepEqual(filtered[filtered.length - 1]!.response.incomplete_details, { reason: 'content_filter' });
  });

  it('a failure mid-answer: the error event in both shapes, then response.failed holding what was written', () => {
    const err = new GatewayError('provider_error', 'The connection to the provider failed.', {
      metadata: { provider_name: 'acme', raw: 'ECONNRESET' },
    });
    const events = run(
      [
        { type: 'text-delta', text: 'Half an ans' },
        { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a"' },
      ],
      { fail: err },
    );
    const [error, failed] = events.slice(-2);
    assert.deepEqual(error, {
      type: 'error',
      sequence_number: error!.sequence_number,
      code: 'provider_error',
      message: 'The connection to the provider failed.',
      param: null,
      error: {
        type: 'provider_error',
        code: 'provider_error',
        message: 'The connection to the provider failed.',
        param: null,
        metadata: { provider_name: 'acme', raw: 'ECONNRESET' },
      },
    });
    assert.equal(failed!.type, 'response.failed');
    assert.equal(failed!.response.status, 'failed');
    assert.deepEqual(failed!.response.error, { code: 'provider_error', message: 'The connection to the provider failed.' });
    assert.deepEqual(
      failed!.response.output.map((o: { type: string; status?: string }) => [o.type, o.status]),
      [
        ['message', 'completed'],
        ['function_call', 'incomplete'],
        ['error', undefined],
      ],
    );
    assert.equal(failed!.response.output[1].arguments, '{"a"');
  });

  it('exactly one terminal event however the failure is reported, also before start()', () => {
    const err = new GatewayError('timeout', 'The request exceeded its time limit.');
    const enc = new ResponsesStreamEncoder(META);
    let out = enc.start() + enc.push({ type: 'text-delta', text: 'x' });
    // The executor pushes an error part and the sink then closes with the same error.
    out += enc.push({ type: 'error', error: err }) + enc.error(err) + enc.end() + enc.push({ type: 'text-delta', text: 'late' });
    const events = parseEvents(out);
    assert.deepEqual(typesOf(events).slice(-2), ['error', 'response.failed']);
    assert.equal(events.filter((e) => e.type === 'error').length, 1);

    // A keep-alive may open a stream before any answer: error() then writes the whole envelope.
    const early = parseEvents(new ResponsesStreamEncoder(META).error(err));
    assert.deepEqual(typesOf(early), ['response.created', 'response.in_progress', 'error', 'response.failed']);
  });

  it('excluded reasoning sends no reasoning events', () => {
    const events = run(
      [
        { type: 'reasoning-delta', text: 'secret' },
        { type: 'reasoning-signature', signature: 'S' },
        { type: 'reasoning-redacted', data: 'R' },
        { type: 'text-delta', text: 'answer' },
      ],
      { meta: { ...META, excludeReasoning: true } },
    );
    assert.equal(
      typesOf(events).some((t) => t.includes('reasoning')),
      false,
    );
    assert.deepEqual(
      events[events.length - 1]!.response.output.map((o: { type: string }) => o.type),
      ['message'],
    );
  });
});
