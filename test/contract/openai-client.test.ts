import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// What a user's code sees through the official `openai` client is what we test.

describe('the official openai client against switchyard (OpenAI-format upstream)', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl) });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('plain completion', async () => {
    emu.enqueue({ text: 'Paris.', usage: { prompt_tokens: 9, completion_tokens: 2 } });
    const c = await client.chat.completions.create({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'Capital of France?' }] });
    assert.equal(c.choices[0]!.message.content, 'Paris.');
    assert.equal(c.choices[0]!.finish_reason, 'stop');
    assert.equal(c.usage!.total_tokens, 11);
    assert.equal(c.model, 'acme/mock-1');
  });

  test('streamed completion, with the usage chunk', async () => {
    emu.enqueue({ text: 'The quick brown fox', chunks: 4, usage: { prompt_tokens: 4, completion_tokens: 4 } });
    const stream = await client.chat.completions.create({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'The quick brown fox');
    assert.equal(finish, 'stop');
    assert.equal(usage?.completion_tokens, 4);
  });

  test('tool call round trip', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    emu.enqueue({ toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Oslo"}' }], finishReason: 'tool_calls' });
    const first = await client.chat.completions.create({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools,
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(call.type, 'function');
    assert.equal(call.type === 'function' && call.function.name, 'get_weather');

    emu.enqueue({ text: 'It is 3°C in Oslo.' });
    const second = await client.chat.completions.create({
      model: 'acme/mock-1',
      tools,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 3}' },
      ],
    });
    assert.equal(second.choices[0]!.message.content, 'It is 3°C in Oslo.');
    const upstream = emu.requests[1]!.body;
    assert.deepEqual(upstream.messages[1].tool_calls, [
      { id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    assert.deepEqual(upstream.messages[2], { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c": 3}' });
  });

  test('streamed tool calls, accumulated by the client helper', async () => {
    emu.enqueue({
      toolCalls: [
        { id: 'call_1', name: 'a', arguments: '{"x":1}' },
        { id: 'call_2', name: 'b', arguments: '{"y":2}' },
      ],
      finishReason: 'tool_calls',
    });
    const runner = client.chat.completions.stream({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'both' }],
      tools: [
        { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'b', parameters: { type: 'object' } } },
      ],
    });
    const final = await runner.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!.map((c) =>
      c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
    );
    assert.deepEqual(calls, [
      ['call_1', 'a', '{"x":1}'],
      ['call_2', 'b', '{"y":2}'],
    ]);
  });

  test('JSON mode and json_schema reach the upstream and the JSON comes back', async () => {
    emu.enqueue({ text: '{"answer":42}' });
    const c = await client.chat.completions.create({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'json please' }],
      response_format: { type: 'json_object' },
    });
    assert.deepEqual(JSON.parse(c.choices[0]!.message.content!), { answer: 42 });
    assert.deepEqual(emu.requests[0]!.body.response_format, { type: 'json_object' });

    emu.enqueue({ text: '{"name":"x"}' });
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    await client.chat.completions.create({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'schema please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'thing', strict: true, schema } },
    });
    assert.deepEqual(emu.requests[1]!.body.response_format, { type: 'json_schema', json_schema: { name: 'thing', strict: true, schema } });
  });

  test("errors surface as the client's typed errors with status, type and code", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'x' }], temperature: 5 }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError);
        assert.equal(err.status, 400);
        assert.equal(err.type, 'invalid_request_error');
        assert.equal(err.code, 'invalid_parameter');
        assert.equal(err.param, 'temperature');
        return true;
      },
    );
    const bad = new OpenAI({ baseURL: gw.baseUrl, apiKey: 'sk-wrong', maxRetries: 0 });
    await assert.rejects(
      bad.chat.completions.create({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.AuthenticationError,
    );

    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 500 });
    await assert.rejects(
      client.chat.completions.create({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'x' }] }),
      (err: unknown) => err instanceof OpenAI.InternalServerError && err.status === 502,
    );

    await assert.rejects(
      client.chat.completions.create({ model: 'acme/nope', messages: [{ role: 'user', content: 'x' }] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && err.code === 'model_not_found',
    );
  });

  test("an error in the middle of a stream is thrown by the client's iterator", async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 });
    const stream = await client.chat.completions.create({ model: 'acme/mock-1', messages: [{ role: 'user', content: 'x' }], stream: true });
    await assert.rejects(async () => {
      for await (const _ of stream) {
        // drain
      }
    }, OpenAI.APIError);
  });

  test('models.list works with the same client', async () => {
    const page = await client.models.list();
    assert.deepEqual(
      page.data.map((m) => m.id),
      ['acme/mock-1'],
    );
  });
});
