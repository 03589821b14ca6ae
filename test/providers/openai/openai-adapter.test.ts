import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import { partsOfType, testRequest, textOf, useOpenAIEmulator } from './openai-test-helpers.ts';

// The adapter against the emulator over real HTTP: what comes back, and how failures surface.
// What the upstream receives is in openai-adapter-request.test.ts.

const h = useOpenAIEmulator();

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openai adapter over HTTP: answers', () => {
  it('decodes plain text (non-stream)', async () => {
    h.emu.enqueue({ text: 'Hello there.', usage: { prompt_tokens: 9, completion_tokens: 3 } });
    const ex = await h.run(testRequest());
    assert.equal(ex.status, 200);
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
    const start = ex.parts[0]!;
    assert.ok(start.type === 'stream-start' && start.id?.startsWith('chatcmpl-') && start.model === 'gpt-test');
    assert.equal(textOf(ex.parts), 'Hello there.');
    assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified: 'stop', raw: 'stop' });
    const usage = partsOfType(ex.parts, 'usage')[0]!.usage;
    assert.deepEqual({ ...usage, raw: undefined }, { input: 9, cacheRead: 0, cacheWrite: 0, output: 3, reasoning: 0, raw: undefined });
  });

  it('answers deterministically when nothing is scripted', async () => {
    const ex = await h.run(testRequest(), h.endpoint());
    assert.equal(textOf(ex.parts), 'Hello from gpt-test');
  });

  it('decodes streaming text chunk by chunk', async () => {
    h.emu.enqueue({ text: 'One two three four', chunks: 4 });
    const ex = await h.run(testRequest({ stream: true }));
    const deltas = partsOfType(ex.parts, 'text-delta').map((p) => p.text);
    assert.equal(deltas.length, 4);
    assert.equal(deltas.join(''), 'One two three four');
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'text-delta', 'text-delta', 'text-delta', 'finish', 'usage'],
    );
  });

  it('decodes a single tool call, non-stream and streamed', async () => {
    const call = { id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' };
    for (const stream of [false, true]) {
      h.emu.enqueue({ toolCalls: [call] });
      const ex = await h.run(testRequest({ stream, tools: [WEATHER_TOOL] }));
      const types = ex.parts.map((p) => p.type).filter((t) => t !== 'tool-call-delta');
      assert.deepEqual(types, ['stream-start', 'tool-call-start', 'tool-call-end', 'finish', 'usage'], `stream=${stream}`);
      const { response } = foldStreamParts(ex.parts);
      assert.deepEqual(response.content, [{ type: 'tool-call', id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
      assert.deepEqual(response.finish, { unified: 'tool_calls', raw: 'tool_calls' });
    }
  });

  it('decodes parallel tool calls, keeping each call apart, streamed and not', async () => {
    const calls = [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ];
    for (const stream of [false, true]) {
      h.emu.enqueue({ text: 'Let me check.', toolCalls: calls });
      const ex = await h.run(testRequest({ stream, tools: [WEATHER_TOOL] }));
      const { response, error } = foldStreamParts(ex.parts);
      assert.equal(error, null);
      assert.deepEqual(response.content, [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ]);
      // Every call is closed, and before the finish.
      const ends = ex.parts.flatMap((p, i) => (p.type === 'tool-call-end' ? [i] : []));
      const finishAt = ex.parts.findIndex((p) => p.type === 'finish');
      assert.equal(ends.length, 2);
      assert.ok(ends.every((i) => i < finishAt));
    }
  });

  it('decodes reasoning from reasoning_content and from reasoning', async () => {
    for (const reasoningField of ['reasoning_content', 'reasoning'] as const) {
      for (const stream of [false, true]) {
        h.emu.enqueue({
          reasoning: 'Think first.',
          reasoningField,
          text: 'Answer.',
          usage: { prompt_tokens: 5, completion_tokens: 20, reasoning_tokens: 12 },
        });
        const ex = await h.run(testRequest({ stream }));
        const { response } = foldStreamParts(ex.parts);
        assert.deepEqual(
          response.content,
          [
            { type: 'reasoning', text: 'Think first.' },
            { type: 'text', text: 'Answer.' },
          ],
          `${reasoningField} stream=${stream}`,
        );
        assert.equal(response.usage?.reasoning, 12);
      }
    }
  });

  it('normalizes usage: prompt_tokens already includes cached tokens', async () => {
    for (const stream of [false, true]) {
      h.emu.enqueue({
        text: 'ok',
        usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 800, cache_write_tokens: 100, reasoning_tokens: 10 },
      });
      const ex = await h.run(testRequest({ stream }));
      const usage = partsOfType(ex.parts, 'usage')[0]!.usage;
      assert.equal(usage.input, 1000);
      assert.equal(usage.cacheRead, 800);
      assert.equal(usage.cacheWrite, 100);
      assert.equal(usage.output, 50);
      assert.equal(usage.reasoning, 10);
      assert.equal((usage.raw as { total_tokens: number }).total_tokens, 1050);
    }
  });

  it('maps finish reasons, streamed and not', async () => {
    const cases = [
      ['length', 'length'],
      ['content_filter', 'content_filter'],
      ['stop', 'stop'],
      ['function_call', 'tool_calls'],
      ['something_new', 'stop'],
    ] as const;
    for (const [raw, unified] of cases) {
      for (const stream of [false, true]) {
        h.emu.enqueue({ text: 'cut', finishReason: raw });
        const ex = await h.run(testRequest({ stream }));
        assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified, raw }, `${raw} stream=${stream}`);
      }
    }
  });

  it('folds a streamed and a non-streamed answer to the same response', async () => {
    const step = {
      reasoning: 'Hmm.',
      text: 'Two calls:',
      toolCalls: [
        { id: 'c1', name: 'a', arguments: '{"x":1}' },
        { id: 'c2', name: 'b', arguments: '{}' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    };
    h.emu.enqueue(step, step);
    const plain = foldStreamParts((await h.run(testRequest())).parts).response;
    const streamed = foldStreamParts((await h.run(testRequest({ stream: true }))).parts).response;
    assert.deepEqual(
      { ...streamed, id: undefined, usage: { ...streamed.usage, raw: undefined } },
      { ...plain, id: undefined, usage: { ...plain.usage, raw: undefined } },
    );
  });

  it('tolerates a stream that ends after the finish chunk without [DONE]', async () => {
    h.emu.enqueue({ text: 'fine', omitDone: true });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish', 'usage'],
    );
  });
});

describe('openai adapter over HTTP: errors and faults', () => {
  it('turns a 5xx into a retryable provider_error with the raw body', async () => {
    h.emu.enqueue({ fault: 'status', status: 503 });
    const ex = await h.run(testRequest());
    assert.equal(ex.status, 503);
    const err = ex.error!;
    assert.equal(err.code, 'provider_error');
    assert.equal(err.status, 502);
    assert.equal(err.retryable, true);
    assert.equal(err.metadata?.provider_name, 'openai');
    assert.equal(err.metadata?.upstream_status, 503);
    assert.deepEqual((err.metadata?.raw as { error: { type: string } }).error.type, 'server_error');
    assert.match(err.message, /503/);
  });

  it('turns a 429 into a retryable provider_error carrying retry-after', async () => {
    h.emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 7 });
    const ex = await h.run(testRequest({ stream: true }));
    assert.equal(ex.status, 429);
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true);
    assert.equal(ex.error!.metadata?.retry_after_seconds, 7);
  });

  it('turns a 400 into upstream_rejected_request with the upstream message', async () => {
    h.emu.enqueue({
      fault: 'status',
      status: 400,
      body: { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: null } },
    });
    const ex = await h.run(testRequest());
    const err = ex.error!;
    assert.equal(err.code, 'upstream_rejected_request');
    assert.equal(err.status, 400);
    assert.equal(err.retryable, false);
    assert.equal(err.message, "Invalid value for 'temperature'");
  });

  it('keeps a non-JSON error body as text', async () => {
    h.emu.enqueue({ fault: 'status', status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    const ex = await h.run(testRequest());
    assert.equal(ex.error!.metadata?.raw, '<html>Bad gateway</html>');
  });

  it('turns a malformed JSON body into an error part (non-stream)', async () => {
    h.emu.enqueue({ fault: 'malformed-json' });
    const ex = await h.run(testRequest());
    assert.equal(ex.parts.length, 1);
    const part = ex.parts[0]!;
    assert.ok(part.type === 'error');
    assert.equal(part.error.code, 'provider_error');
    assert.match(String(part.error.metadata?.raw), /^\{"id":"chatcmpl-broken"/);
  });

  it('turns a malformed JSON data line into one error part and ignores the rest (stream)', async () => {
    h.emu.enqueue({ fault: 'malformed-json' });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'error'],
    );
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.equal(err.metadata?.raw, '{not json');
  });

  it('turns an error object in the stream into an error part with the upstream message', async () => {
    h.emu.enqueue({ fault: 'stream-error', afterChunks: 2, error: { message: 'The model overloaded', type: 'server_error', code: null } });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'error'],
    );
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.match(err.message, /The model overloaded/);
    assert.deepEqual(err.metadata?.raw, { error: { message: 'The model overloaded', type: 'server_error', code: null } });
    assert.equal(err.metadata?.provider_name, 'openai');
  });

  it('turns an error object in a 200 body into an error part (non-stream)', async () => {
    h.emu.enqueue({ fault: 'stream-error', error: { message: 'nope', type: 'server_error' } });
    const ex = await h.run(testRequest());
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['error'],
    );
    assert.match(partsOfType(ex.parts, 'error')[0]!.error.message, /nope/);
  });

  it('ends a stream reset mid-way with an error part after the content received', async () => {
    h.emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 3 });
    const ex = await h.run(testRequest({ stream: true }));
    assert.ok(ex.transportError !== null, 'the socket was reset');
    const types = ex.parts.map((p) => p.type);
    assert.deepEqual(types, ['stream-start', 'text-delta', 'text-delta', 'error']);
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.match(err.message, /ended before completion/);
  });

  it('closes open tool calls before the error when a tool stream is cut', async () => {
    h.emu.enqueue({
      fault: 'reset-mid-stream',
      afterChunks: 3,
      then: { toolCalls: [{ id: 'c1', name: 'a', arguments: '{"long":"arguments here"}' }] },
    });
    const ex = await h.run(testRequest({ stream: true }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'error'],
    );
  });

  it('waits out a slow first byte', async () => {
    h.emu.enqueue({ fault: 'slow-first-byte', delayMs: 50, then: { text: 'late' } });
    const started = Date.now();
    const ex = await h.run(testRequest({ stream: true }));
    assert.ok(Date.now() - started >= 45);
    assert.equal(textOf(ex.parts), 'late');
  });
});
