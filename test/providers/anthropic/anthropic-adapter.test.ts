import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import { anthropicRequest, partsOfType, textOf, useAnthropicEmulator } from './anthropic-test-helpers.ts';

// The adapter against the emulator over real HTTP: what comes back, and how failures surface.
// What the upstream receives is in anthropic-adapter-request.test.ts.

const h = useAnthropicEmulator();

const WEATHER_TOOL = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('anthropic adapter over HTTP: answers', () => {
  it('decodes plain text (non-stream)', async () => {
    h.emu.enqueue({ text: 'Hello there.', usage: { input_tokens: 9, output_tokens: 3 } });
    const ex = await h.run(anthropicRequest());
    assert.equal(ex.status, 200);
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
    const start = ex.parts[0]!;
    assert.ok(start.type === 'stream-start' && start.id?.startsWith('msg_') && start.model === 'claude-test');
    assert.equal(textOf(ex.parts), 'Hello there.');
    assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified: 'stop', raw: 'end_turn' });
    const usage = partsOfType(ex.parts, 'usage')[0]!.usage;
    assert.deepEqual({ ...usage, raw: undefined }, { input: 9, cacheRead: 0, cacheWrite: 0, output: 3, reasoning: 0, raw: undefined });
  });

  it('answers deterministically when nothing is scripted', async () => {
    for (const stream of [false, true]) assert.equal(textOf((await h.run(anthropicRequest({ stream }))).parts), 'Hello from claude-test');
  });

  it('decodes streaming text delta by delta', async () => {
    h.emu.enqueue({ text: 'One two three four', chunks: 4 });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.deepEqual(
      partsOfType(ex.parts, 'text-delta').map((p) => p.text),
      ['One t', 'wo t', 'hree ', 'four'],
    );
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'text-delta', 'text-delta', 'text-delta', 'finish', 'usage'],
    );
  });

  it('decodes thinking with its signature and redacted thinking, in order, streamed and not', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({
        thinking: 'Two cities, two calls.',
        signature: 'EqQBCkgIARABGAIiQL',
        redacted: 'EmwKAhgBEgy3vaRedacted',
        text: 'Answer.',
      });
      const ex = await h.run(anthropicRequest({ stream, reasoning: { effort: 'low' } }));
      const { response, error } = foldStreamParts(ex.parts);
      assert.equal(error, null);
      assert.deepEqual(
        response.content,
        [
          { type: 'reasoning', text: 'Two cities, two calls.', signature: 'EqQBCkgIARABGAIiQL' },
          { type: 'redacted-reasoning', data: 'EmwKAhgBEgy3vaRedacted' },
          { type: 'text', text: 'Answer.' },
        ],
        `stream=${stream}`,
      );
      // One signature part, after the block's text.
      const sigAt = ex.parts.findIndex((p) => p.type === 'reasoning-signature');
      assert.equal(partsOfType(ex.parts, 'reasoning-signature').length, 1);
      assert.equal(ex.parts[sigAt - 1]!.type, 'reasoning-delta');
    }
  });

  it('decodes a tool call from input_json_delta fragments, streamed and not', async () => {
    const call = { id: 'toolu_01abc', name: 'get_weather', arguments: '{"city":"Paris"}' };
    for (const stream of [false, true]) {
      h.emu.enqueue({ toolCalls: [call] });
      const ex = await h.run(anthropicRequest({ stream, tools: [WEATHER_TOOL] }));
      const types = ex.parts.map((p) => p.type).filter((t) => t !== 'tool-call-delta');
      assert.deepEqual(types, ['stream-start', 'tool-call-start', 'tool-call-end', 'finish', 'usage'], `stream=${stream}`);
      const { response } = foldStreamParts(ex.parts);
      assert.deepEqual(response.content, [{ type: 'tool-call', id: 'toolu_01abc', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
      assert.deepEqual(response.finish, { unified: 'tool_calls', raw: 'tool_use' });
    }
    // The empty first fragment real streams send is not passed on.
    assert.ok(
      partsOfType((await (h.emu.enqueue({ toolCalls: [call] }), h.run(anthropicRequest({ stream: true })))).parts, 'tool-call-delta').every(
        (p) => p.argumentsDelta.length > 0,
      ),
    );
  });

  it('decodes text and parallel tool calls, numbering calls by appearance', async () => {
    const calls = [
      { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ];
    for (const stream of [false, true]) {
      h.emu.enqueue({ thinking: 'Both.', text: 'Let me check.', toolCalls: calls });
      const ex = await h.run(anthropicRequest({ stream, tools: [WEATHER_TOOL] }));
      assert.deepEqual(
        partsOfType(ex.parts, 'tool-call-start').map((p) => [p.index, p.id]),
        [
          [0, 'toolu_1'],
          [1, 'toolu_2'],
        ],
      );
      const { response } = foldStreamParts(ex.parts);
      assert.deepEqual(response.content.slice(1), [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ]);
      const ends = ex.parts.flatMap((p, i) => (p.type === 'tool-call-end' ? [i] : []));
      assert.ok(ends.length === 2 && ends.every((i) => i < ex.parts.findIndex((p) => p.type === 'finish')));
    }
  });

  it('gives a tool call with no arguments `{}`', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({ toolCalls: [{ id: 'toolu_n', name: 'now', arguments: '' }] });
      const { response } = foldStreamParts((await h.run(anthropicRequest({ stream }))).parts);
      assert.deepEqual(response.content, [{ type: 'tool-call', id: 'toolu_n', name: 'now', arguments: '{}' }], `stream=${stream}`);
    }
  });

  it('normalizes usage: input_tokens excludes cache reads and writes, output includes thinking', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({
        text: 'ok',
        usage: {
          input_tokens: 50,
          cache_read_input_tokens: 800,
          cache_creation_input_tokens: 150,
          output_tokens: 120,
          thinking_tokens: 100,
        },
      });
      const ex = await h.run(anthropicRequest({ stream }));
      const usages = partsOfType(ex.parts, 'usage');
      assert.equal(usages.length, 1, 'one usage part, after the finish');
      assert.equal(ex.parts.at(-1)!.type, 'usage');
      const usage = usages[0]!.usage;
      assert.deepEqual(
        { ...usage, raw: undefined },
        { input: 1000, cacheRead: 800, cacheWrite: 150, output: 120, reasoning: 100, raw: undefined },
        `stream=${stream}`,
      );
      assert.equal((usage.raw as { input_tokens: number }).input_tokens, 50);
    }
  });

  it('maps stop reasons, keeping the raw value and the stop sequence', async () => {
    const cases = [
      ['end_turn', 'stop'],
      ['max_tokens', 'length'],
      ['tool_use', 'tool_calls'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'stop'],
      ['model_context_window_exceeded', 'length'],
      ['something_new', 'stop'],
    ] as const;
    for (const [raw, unified] of cases) {
      for (const stream of [false, true]) {
        h.emu.enqueue({ text: 'cut', stopReason: raw });
        const ex = await h.run(anthropicRequest({ stream }));
        assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified, raw }, `${raw} stream=${stream}`);
      }
    }
    for (const stream of [false, true]) {
      h.emu.enqueue({ text: 'one two', stopReason: 'stop_sequence', stopSequence: 'THREE' });
      const ex = await h.run(anthropicRequest({ stream, stop: ['THREE'] }));
      assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified: 'stop', raw: 'stop_sequence', stopSequence: 'THREE' });
    }
  });

  it('folds a streamed and a non-streamed answer to the same response', async () => {
    const step = {
      thinking: 'Hmm.',
      redacted: 'abc',
      text: 'Two calls:',
      toolCalls: [
        { id: 'toolu_a', name: 'a', arguments: '{"x":1}' },
        { id: 'toolu_b', name: 'b', arguments: '{}' },
      ],
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 2 },
    };
    h.emu.enqueue(step, step);
    const plain = foldStreamParts((await h.run(anthropicRequest())).parts).response;
    const streamed = foldStreamParts((await h.run(anthropicRequest({ stream: true }))).parts).response;
    assert.deepEqual(
      { ...streamed, id: undefined, usage: { ...streamed.usage, raw: undefined } },
      { ...plain, id: undefined, usage: { ...plain.usage, raw: undefined } },
    );
  });

  it('finishes a stream that ends after message_delta without message_stop', async () => {
    h.emu.enqueue({ text: 'fine', omitMessageStop: true });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
  });
});

describe('anthropic adapter over HTTP: errors and faults', () => {
  it('turns 529 overloaded_error into a retryable provider_error with the raw envelope', async () => {
    h.emu.enqueue({ fault: 'status', status: 529 });
    const ex = await h.run(anthropicRequest());
    assert.equal(ex.status, 529);
    const err = ex.error!;
    assert.equal(err.code, 'provider_error');
    assert.equal(err.status, 502);
    assert.equal(err.retryable, true);
    assert.equal(err.message, 'Anthropic returned HTTP 529: Overloaded');
    assert.equal(err.metadata?.provider_name, 'anthropic');
    assert.equal(err.metadata?.upstream_status, 529);
    assert.equal((err.metadata?.raw as { error: { type: string } }).error.type, 'overloaded_error');
  });

  it('turns 500 and 503 into retryable provider_errors', async () => {
    for (const status of [500, 503]) {
      h.emu.enqueue({ fault: 'status', status });
      const err = (await h.run(anthropicRequest({ stream: true }))).error!;
      assert.deepEqual([err.code, err.retryable], ['provider_error', true], String(status));
    }
  });

  it('turns a 429 into a retryable provider_error carrying retry-after', async () => {
    h.emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 7 });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.equal(ex.status, 429);
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true);
    assert.equal(ex.error!.metadata?.retry_after_seconds, 7);
  });

  it("turns 401 and 403 into retryable provider_errors that do not repeat the upstream's words", async () => {
    for (const status of [401, 403]) {
      h.emu.enqueue({ fault: 'status', status });
      const err = (await h.run(anthropicRequest())).error!;
      assert.equal(err.code, 'provider_error');
      assert.equal(err.retryable, true, 'another provider may hold working credentials');
      assert.equal(err.message, `Anthropic returned HTTP ${status}`);
    }
  });

  it('turns 400, 404 and 413 into upstream_rejected_request with the upstream message', async () => {
    for (const status of [400, 404, 413]) {
      h.emu.enqueue({
        fault: 'status',
        status,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      });
      const err = (await h.run(anthropicRequest())).error!;
      assert.equal(err.code, 'upstream_rejected_request');
      assert.equal(err.status, 400);
      assert.equal(err.retryable, false);
      assert.equal(err.message, 'prompt is too long: 210000 tokens > 200000 maximum');
    }
  });

  it('keeps a non-JSON error body as text', async () => {
    h.emu.enqueue({ fault: 'status', status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    assert.equal((await h.run(anthropicRequest())).error!.metadata?.raw, '<html>Bad gateway</html>');
  });

  it('turns a malformed JSON body into an error part (non-stream)', async () => {
    h.emu.enqueue({ fault: 'malformed-json' });
    const ex = await h.run(anthropicRequest());
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['error'],
    );
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.match(String(err.metadata?.raw), /^\{"id":"msg_broken"/);
  });

  it('turns a malformed data line into one error part and ignores the rest (stream)', async () => {
    h.emu.enqueue({ fault: 'malformed-json' });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'error'],
    );
    assert.equal(partsOfType(ex.parts, 'error')[0]!.error.metadata?.raw, '{not json');
  });

  it('turns an `event: error` mid-stream into an error part after the content received', async () => {
    h.emu.enqueue({ fault: 'stream-error', afterChunks: 4 });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'error'],
    );
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.equal(err.retryable, true, 'overloaded');
    assert.match(err.message, /Overloaded/);
    assert.deepEqual(err.metadata?.raw, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('classifies an in-stream error by its type', async () => {
    h.emu.enqueue({ fault: 'stream-error', error: { type: 'invalid_request_error', message: 'bad image' } });
    const err = partsOfType((await h.run(anthropicRequest({ stream: true }))).parts, 'error')[0]!.error;
    assert.deepEqual([err.code, err.message], ['upstream_rejected_request', 'bad image']);
  });

  it('turns an error envelope in a 200 body into an error part (non-stream)', async () => {
    h.emu.enqueue({ fault: 'stream-error' });
    const ex = await h.run(anthropicRequest());
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['error'],
    );
    assert.equal(partsOfType(ex.parts, 'error')[0]!.error.retryable, true);
  });

  it('ends a stream reset mid-way with an error part after the content received', async () => {
    h.emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 4 });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.ok(ex.transportError !== null, 'the socket was reset');
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'error'],
    );
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.match(err.message, /ended before completion/);
  });

  it('closes an open tool call before the error when a tool stream is cut', async () => {
    h.emu.enqueue({
      fault: 'reset-mid-stream',
      afterChunks: 4,
      then: { toolCalls: [{ id: 'toolu_c', name: 'a', arguments: '{"long":"arguments here"}' }] },
    });
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'error'],
    );
  });

  it('waits out a slow first byte', async () => {
    h.emu.enqueue({ fault: 'slow-first-byte', delayMs: 50, then: { text: 'late' } });
    const started = Date.now();
    const ex = await h.run(anthropicRequest({ stream: true }));
    assert.ok(Date.now() - started >= 45);
    assert.equal(textOf(ex.parts), 'late');
  });
});
