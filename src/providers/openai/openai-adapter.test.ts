import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import OpenAI from 'openai';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../../../test/emulators/openai-chat-emulator.ts';
import { foldStreamParts } from '../../canonical/fold-stream-parts.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Endpoint, ProviderConfig } from '../../catalog/types.ts';
import { openaiAdapter } from './openai-adapter.ts';
import { partsOfType, runExchange, testEndpoint, testRequest, textOf, type Exchange } from './openai-test-helpers.ts';

let emu: OpenAIChatEmulator;
let agent: Agent;

before(async () => {
  emu = await startOpenAIChatEmulator();
  agent = new Agent();
});
after(async () => {
  await agent.close();
  await emu.close();
});
beforeEach(() => emu.reset());

function endpoint(provider: Partial<ProviderConfig> = {}): Endpoint {
  return testEndpoint({ baseUrl: emu.baseUrl, apiKey: 'sk-test', ...provider });
}

function run(req: CanonicalRequest, ep: Endpoint = endpoint()): Promise<Exchange> {
  return runExchange(openaiAdapter, req, ep, agent);
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openai adapter over HTTP: requests', () => {
  it('sends a minimal request with nothing the client did not set', async () => {
    await run(testRequest());
    assert.equal(emu.requests.length, 1);
    const r = emu.requests[0]!;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, 'Bearer sk-test');
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(r.body, { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('streams with stream_options.include_usage and nothing else added', async () => {
    await run(testRequest({ stream: true }));
    assert.deepEqual(emu.requests[0]!.body, {
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('omits authorization without an api key, strips a trailing slash and adds provider headers', async () => {
    await run(testRequest(), endpoint({ apiKey: '', baseUrl: `${emu.baseUrl}/`, headers: { 'x-org': 'acme' } }));
    const r = emu.requests[0]!;
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, undefined);
    assert.equal(r.headers['x-org'], 'acme');
  });

  it('sends max_completion_tokens to OpenAI itself and max_tokens to a generic server', async () => {
    await run(testRequest({ maxOutputTokens: 64 }), endpoint({ profile: 'openai' }));
    await run(testRequest({ maxOutputTokens: 64 }), endpoint());
    assert.equal(emu.requests[0]!.body.max_completion_tokens, 64);
    assert.equal('max_tokens' in emu.requests[0]!.body, false);
    assert.equal(emu.requests[1]!.body.max_tokens, 64);
    assert.equal('max_completion_tokens' in emu.requests[1]!.body, false);
  });

  it('maps sampling, tools, tool choice and the rest; drops what OpenAI does not take', async () => {
    const req = testRequest({
      sampling: {
        temperature: 0.2, topP: 0.9, topK: 40, minP: 0.05, topA: 0.1, frequencyPenalty: 0.5,
        presencePenalty: -0.5, repetitionPenalty: 1.1, seed: 7, logitBias: { '50256': -100 },
      },
      stop: ['END'],
      tools: [{ ...WEATHER_TOOL, strict: true }],
      toolChoice: { type: 'tool', name: 'get_weather' },
      parallelToolCalls: false,
      reasoning: { effort: 'low', maxTokens: 1000 },
      user: 'u-1',
      promptCacheKey: 'pck',
      extra: { verbosity: 'low', store: true, foo: 1 },
    });
    await run(req, endpoint({ profile: 'openai' }));
    assert.deepEqual(emu.requests[0]!.body, {
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      seed: 7,
      logit_bias: { '50256': -100 },
      stop: ['END'],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_TOOL.parameters, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      user: 'u-1',
      prompt_cache_key: 'pck',
      verbosity: 'low',
    });
  });

  it('passes top_k, min_p and repetition_penalty to a generic server, and no extras', async () => {
    const req = testRequest({ sampling: { topK: 40, minP: 0.05, topA: 0.1, repetitionPenalty: 1.1 }, extra: { verbosity: 'low' } });
    await run(req);
    const body = emu.requests[0]!.body;
    assert.equal(body.top_k, 40);
    assert.equal(body.min_p, 0.05);
    assert.equal(body.repetition_penalty, 1.1);
    assert.equal('top_a' in body, false);
    assert.equal('verbosity' in body, false);
  });

  it('sends JSON mode and json_schema response formats in the chat shape', async () => {
    await run(testRequest({ responseFormat: { type: 'json_object' } }));
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    await run(testRequest({ responseFormat: { type: 'json_schema', name: 'thing', schema, strict: true, description: 'A thing' } }));
    assert.deepEqual(emu.requests[0]!.body.response_format, { type: 'json_object' });
    assert.deepEqual(emu.requests[1]!.body.response_format, {
      type: 'json_schema',
      json_schema: { name: 'thing', schema, strict: true, description: 'A thing' },
    });
  });

  it('sends a tool round trip as assistant tool_calls and tool messages', async () => {
    const req = testRequest({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'two cities', signature: 'sig' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'call_1', content: 'sunny' },
            { type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'text', text: 'rain' }, { type: 'image', url: 'https://x/y.png' }, { type: 'text', text: '12C' }] },
          ],
        },
      ],
      tools: [WEATHER_TOOL],
      toolChoice: { type: 'auto' },
    });
    await run(req);
    const body = emu.requests[0]!.body;
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'rain\n12C' },
    ]);
    assert.equal(body.tool_choice, 'auto');
  });
});

describe('openai adapter over HTTP: answers', () => {
  it('decodes plain text (non-stream)', async () => {
    emu.enqueue({ text: 'Hello there.', usage: { prompt_tokens: 9, completion_tokens: 3 } });
    const ex = await run(testRequest());
    assert.equal(ex.status, 200);
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'text-delta', 'finish', 'usage']);
    const start = ex.parts[0]!;
    assert.ok(start.type === 'stream-start' && start.id?.startsWith('chatcmpl-') && start.model === 'gpt-test');
    assert.equal(textOf(ex.parts), 'Hello there.');
    assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified: 'stop', raw: 'stop' });
    const usage = partsOfType(ex.parts, 'usage')[0]!.usage;
    assert.deepEqual({ ...usage, raw: undefined }, { input: 9, cacheRead: 0, cacheWrite: 0, output: 3, reasoning: 0, raw: undefined });
  });

  it('answers deterministically when nothing is scripted', async () => {
    const ex = await run(testRequest(), endpoint());
    assert.equal(textOf(ex.parts), 'Hello from gpt-test');
  });

  it('decodes streaming text chunk by chunk', async () => {
    emu.enqueue({ text: 'One two three four', chunks: 4 });
    const ex = await run(testRequest({ stream: true }));
    const deltas = partsOfType(ex.parts, 'text-delta').map((p) => p.text);
    assert.equal(deltas.length, 4);
    assert.equal(deltas.join(''), 'One two three four');
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'text-delta', 'text-delta', 'text-delta', 'text-delta', 'finish', 'usage']);
  });

  it('decodes a single tool call, non-stream and streamed', async () => {
    const call = { id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' };
    for (const stream of [false, true]) {
      emu.enqueue({ toolCalls: [call] });
      const ex = await run(testRequest({ stream, tools: [WEATHER_TOOL] }));
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
      emu.enqueue({ text: 'Let me check.', toolCalls: calls });
      const ex = await run(testRequest({ stream, tools: [WEATHER_TOOL] }));
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
        emu.enqueue({ reasoning: 'Think first.', reasoningField, text: 'Answer.', usage: { prompt_tokens: 5, completion_tokens: 20, reasoning_tokens: 12 } });
        const ex = await run(testRequest({ stream }));
        const { response } = foldStreamParts(ex.parts);
        assert.deepEqual(response.content, [{ type: 'reasoning', text: 'Think first.' }, { type: 'text', text: 'Answer.' }], `${reasoningField} stream=${stream}`);
        assert.equal(response.usage?.reasoning, 12);
      }
    }
  });

  it('normalizes usage: prompt_tokens already includes cached tokens', async () => {
    for (const stream of [false, true]) {
      emu.enqueue({ text: 'ok', usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 800, cache_write_tokens: 100, reasoning_tokens: 10 } });
      const ex = await run(testRequest({ stream }));
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
        emu.enqueue({ text: 'cut', finishReason: raw });
        const ex = await run(testRequest({ stream }));
        assert.deepEqual(partsOfType(ex.parts, 'finish')[0]!.reason, { unified, raw }, `${raw} stream=${stream}`);
      }
    }
  });

  it('folds a streamed and a non-streamed answer to the same response', async () => {
    const step = { reasoning: 'Hmm.', text: 'Two calls:', toolCalls: [{ id: 'c1', name: 'a', arguments: '{"x":1}' }, { id: 'c2', name: 'b', arguments: '{}' }], usage: { prompt_tokens: 3, completion_tokens: 4 } };
    emu.enqueue(step, step);
    const plain = foldStreamParts((await run(testRequest())).parts).response;
    const streamed = foldStreamParts((await run(testRequest({ stream: true }))).parts).response;
    assert.deepEqual({ ...streamed, id: undefined, usage: { ...streamed.usage, raw: undefined } }, { ...plain, id: undefined, usage: { ...plain.usage, raw: undefined } });
  });

  it('tolerates a stream that ends after the finish chunk without [DONE]', async () => {
    emu.enqueue({ text: 'fine', omitDone: true });
    const ex = await run(testRequest({ stream: true }));
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'text-delta', 'finish', 'usage']);
  });
});

describe('openai adapter over HTTP: errors and faults', () => {
  it('turns a 5xx into a retryable provider_error with the raw body', async () => {
    emu.enqueue({ fault: 'status', status: 503 });
    const ex = await run(testRequest());
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
    emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 7 });
    const ex = await run(testRequest({ stream: true }));
    assert.equal(ex.status, 429);
    assert.equal(ex.error!.code, 'provider_error');
    assert.equal(ex.error!.retryable, true);
    assert.equal(ex.error!.metadata?.retry_after_seconds, 7);
  });

  it('turns a 400 into upstream_rejected_request with the upstream message', async () => {
    emu.enqueue({ fault: 'status', status: 400, body: { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: null } } });
    const ex = await run(testRequest());
    const err = ex.error!;
    assert.equal(err.code, 'upstream_rejected_request');
    assert.equal(err.status, 400);
    assert.equal(err.retryable, false);
    assert.equal(err.message, "Invalid value for 'temperature'");
  });

  it('keeps a non-JSON error body as text', async () => {
    emu.enqueue({ fault: 'status', status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } });
    const ex = await run(testRequest());
    assert.equal(ex.error!.metadata?.raw, '<html>Bad gateway</html>');
  });

  it('turns a malformed JSON body into an error part (non-stream)', async () => {
    emu.enqueue({ fault: 'malformed-json' });
    const ex = await run(testRequest());
    assert.equal(ex.parts.length, 1);
    const part = ex.parts[0]!;
    assert.ok(part.type === 'error');
    assert.equal(part.error.code, 'provider_error');
    assert.match(String(part.error.metadata?.raw), /^\{"id":"chatcmpl-broken"/);
  });

  it('turns a malformed JSON data line into one error part and ignores the rest (stream)', async () => {
    emu.enqueue({ fault: 'malformed-json' });
    const ex = await run(testRequest({ stream: true }));
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'error']);
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.equal(err.metadata?.raw, '{not json');
  });

  it('turns an error object in the stream into an error part with the upstream message', async () => {
    emu.enqueue({ fault: 'stream-error', afterChunks: 2, error: { message: 'The model overloaded', type: 'server_error', code: null } });
    const ex = await run(testRequest({ stream: true }));
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'text-delta', 'error']);
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.match(err.message, /The model overloaded/);
    assert.deepEqual(err.metadata?.raw, { error: { message: 'The model overloaded', type: 'server_error', code: null } });
    assert.equal(err.metadata?.provider_name, 'openai');
  });

  it('turns an error object in a 200 body into an error part (non-stream)', async () => {
    emu.enqueue({ fault: 'stream-error', error: { message: 'nope', type: 'server_error' } });
    const ex = await run(testRequest());
    assert.deepEqual(ex.parts.map((p) => p.type), ['error']);
    assert.match(partsOfType(ex.parts, 'error')[0]!.error.message, /nope/);
  });

  it('ends a stream reset mid-way with an error part after the content received', async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 3 });
    const ex = await run(testRequest({ stream: true }));
    assert.ok(ex.transportError !== null, 'the socket was reset');
    const types = ex.parts.map((p) => p.type);
    assert.deepEqual(types, ['stream-start', 'text-delta', 'text-delta', 'error']);
    const err = partsOfType(ex.parts, 'error')[0]!.error;
    assert.equal(err.code, 'provider_error');
    assert.match(err.message, /ended before completion/);
  });

  it('closes open tool calls before the error when a tool stream is cut', async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 3, then: { toolCalls: [{ id: 'c1', name: 'a', arguments: '{"long":"arguments here"}' }] } });
    const ex = await run(testRequest({ stream: true }));
    assert.deepEqual(ex.parts.map((p) => p.type), ['stream-start', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'error']);
  });

  it('waits out a slow first byte', async () => {
    emu.enqueue({ fault: 'slow-first-byte', delayMs: 50, then: { text: 'late' } });
    const started = Date.now();
    const ex = await run(testRequest({ stream: true }));
    assert.ok(Date.now() - started >= 45);
    assert.equal(textOf(ex.parts), 'late');
  });
});

describe('the emulator', () => {
  it('hangs when told to, until the client gives up', async () => {
    emu.enqueue({ fault: 'hang' });
    const up = openaiAdapter.encodeRequest(testRequest(), endpoint());
    await assert.rejects(
      request(up.url, { method: 'POST', headers: up.headers, body: up.body, dispatcher: agent, signal: AbortSignal.timeout(100) }),
      (err: Error) => err.name === 'TimeoutError' || err.name === 'AbortError',
    );
  });

  it('speaks the wire the official openai client reads', async () => {
    const client = new OpenAI({ apiKey: 'sk-x', baseURL: emu.baseUrl, maxRetries: 0 });
    emu.enqueue({ text: 'Hi there', usage: { prompt_tokens: 4, completion_tokens: 2, cached_tokens: 1 } });
    const completion = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(completion.choices[0]!.message.content, 'Hi there');
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 1);

    emu.enqueue({ text: 'a b', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"k":"v"}' }] });
    const stream = client.chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    assert.equal(message.content, 'a b');
    assert.deepEqual(message.tool_calls?.map((c) => c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : []), [['call_1', 'f', '{"k":"v"}']]);
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    assert.ok(final.usage !== undefined && final.usage !== null);

    emu.enqueue({ fault: 'rate-limit', retryAfterSeconds: 1 });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] }), (err: InstanceType<typeof OpenAI.APIError>) => err.status === 429);
    // Recorded as the SDK sent it.
    assert.equal(emu.requests.at(-2)!.body.stream, true);
  });
});
