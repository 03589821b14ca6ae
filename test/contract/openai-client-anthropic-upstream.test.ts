import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The official `openai` client (chat completions) through switchyard to an Anthropic-format
// upstream: what a user's code sees, and what Anthropic receives, across the translation.

function anthropicConfig(baseUrl: string): string {
  return `sim: false
providers:
  - id: claude-a
    kind: anthropic
    base_url: ${baseUrl}
    api_key: sk-ant-upstream
  - id: claude-b
    kind: anthropic
    base_url: ${baseUrl}/v1
    api_key: sk-ant-b
  - id: claude-c
    kind: anthropic
    base_url: ${baseUrl}
    api_key: sk-ant-c
models:
  - id: acme/claude-mock
    name: Claude Mock
    context_length: 200000
    capabilities: [text, tool_calling, json_mode, structured_outputs, streaming, reasoning]
    endpoints:
      - provider: claude-a
        model: claude-mock-1
        max_output_tokens: 8192
        pricing: { prompt: "0.000003", completion: "0.000015" }
  - id: acme/claude-ha
    name: Claude on two providers
    context_length: 200000
    endpoints:
      - provider: claude-b
        model: claude-mock-b
        pricing: { prompt: "0.000003", completion: "0.000015" }
      - provider: claude-c
        model: claude-mock-c
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: CITY } },
];

describe('the official openai client against switchyard (Anthropic-format upstream)', () => {
  let emu: AnthropicEmulator;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    emu = await startAnthropicEmulator();
    gw = await startTestGateway({ yaml: anthropicConfig(emu.baseUrl) });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('plain completion: system hoisted, usage with cache tokens normalized', async () => {
    emu.enqueue({
      text: 'Paris.',
      usage: { input_tokens: 9, output_tokens: 2, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    });
    const c = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    assert.equal(c.choices[0]!.message.content, 'Paris.');
    assert.equal(c.choices[0]!.finish_reason, 'stop');
    assert.equal(c.model, 'acme/claude-mock');
    assert.equal(c.usage!.prompt_tokens, 129, 'Anthropic input_tokens plus cache reads and writes');
    assert.equal(c.usage!.prompt_tokens_details?.cached_tokens, 100);
    assert.equal(c.usage!.total_tokens, 131);

    const r = emu.requests[0]!;
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.headers['x-api-key'], 'sk-ant-upstream');
    assert.equal(r.headers['anthropic-version'], '2023-06-01');
    assert.deepEqual(r.body, {
      model: 'claude-mock-1',
      max_tokens: 8192,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }],
    });
  });

  test('streamed completion, with the usage chunk', async () => {
    emu.enqueue({ text: 'The quick brown fox', usage: { input_tokens: 4, output_tokens: 4 } });
    const stream = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
    });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta.content;
      if (d) deltas.push(d);
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.deepEqual(deltas, ['The ', 'quick ', 'brown ', 'fox']);
    assert.equal(finish, 'stop');
    assert.equal(usage?.completion_tokens, 4);
    assert.equal(emu.requests[0]!.body.stream, true);
    assert.equal(emu.requests[0]!.body.max_tokens, 50);
  });

  test('tool call round trip: tool_use out, tool_result back in', async () => {
    emu.enqueue({ text: 'Let me check.', toolCalls: [{ id: 'toolu_01abc', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const first = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: WEATHER,
    });
    const choice = first.choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, 'Let me check.');
    const call = choice.message.tool_calls![0]!;
    assert.ok(call.type === 'function');
    assert.deepEqual([call.id, call.function.name, JSON.parse(call.function.arguments)], ['toolu_01abc', 'get_weather', { city: 'Oslo' }]);
    assert.deepEqual(emu.requests[0]!.body.tools, [{ name: 'get_weather', description: 'Weather in a city', input_schema: CITY }]);

    emu.enqueue({ text: 'It is 3°C in Oslo.' });
    const second = await client.chat.completions.create({
      model: 'acme/claude-mock',
      tools: WEATHER,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        choice.message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 3}' },
      ],
    });
    assert.equal(second.choices[0]!.message.content, 'It is 3°C in Oslo.');
    assert.deepEqual(emu.requests[1]!.body.messages.slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01abc', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01abc', content: '{"temp_c": 3}' }] },
    ]);
  });

  test('streamed tool calls, accumulated by the client helper', async () => {
    emu.enqueue({
      toolCalls: [
        { id: 'toolu_1', name: 'a', arguments: '{"x":1}' },
        { id: 'toolu_2', name: 'b', arguments: '{"y":[2,3]}' },
      ],
    });
    const final = await client.chat.completions
      .stream({
        model: 'acme/claude-mock',
        messages: [{ role: 'user', content: 'both' }],
        tools: [
          { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'b', parameters: { type: 'object' } } },
        ],
      })
      .finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!.map((c) =>
      c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
    );
    assert.deepEqual(calls, [
      ['toolu_1', 'a', '{"x":1}'],
      ['toolu_2', 'b', '{"y":[2,3]}'],
    ]);
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
  });

  test('reasoning: an effort becomes a thinking budget, and the thinking comes back as reasoning', async () => {
    emu.enqueue({ thinking: 'Paris is the capital.', text: 'Paris.', usage: { input_tokens: 10, output_tokens: 30, thinking_tokens: 20 } });
    const c = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'Capital of France?' }],
      reasoning_effort: 'low',
      temperature: 0.3,
    });
    const message = c.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning?: string };
    assert.equal(message.reasoning, 'Paris is the capital.');
    assert.equal(message.content, 'Paris.');
    assert.equal(c.usage!.completion_tokens_details?.reasoning_tokens, 20);
    const body = emu.requests[0]!.body;
    assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.equal('temperature' in body, false, 'Anthropic rejects temperature with thinking');

    // Streamed, with tools: interleaved thinking is asked for.
    emu.enqueue({ thinking: 'Need the weather tool.', toolCalls: [{ id: 'toolu_r', name: 'get_weather', arguments: '{"city":"Rome"}' }] });
    const stream = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: WEATHER,
      stream: true,
      ...({ reasoning: { max_tokens: 2000 } } as object),
    });
    let reasoning = '';
    for await (const chunk of stream) reasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? '';
    assert.equal(reasoning, 'Need the weather tool.');
    assert.equal(emu.requests[1]!.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
    assert.deepEqual(emu.requests[1]!.body.thinking, { type: 'enabled', budget_tokens: 2000 });
  });

  test('reasoning over a replayed tool loop: the turn goes without thinking rather than fail', async () => {
    emu.enqueue({ text: 'Sunny in Rome.' });
    const c = await client.chat.completions.create({
      model: 'acme/claude-mock',
      reasoning_effort: 'low',
      tools: WEATHER,
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_r', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_r', content: 'sunny' },
      ],
    });
    assert.equal(c.choices[0]!.message.content, 'Sunny in Rome.');
    assert.equal('thinking' in emu.requests[0]!.body, false);
  });

  test('json_schema reaches Anthropic as output_config.format', async () => {
    emu.enqueue({ text: '{"name":"x"}' });
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    const c = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'schema please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'thing', strict: true, schema } },
    });
    assert.deepEqual(JSON.parse(c.choices[0]!.message.content!), { name: 'x' });
    assert.deepEqual(emu.requests[0]!.body.output_config, { format: { type: 'json_schema', schema } });
  });

  test("upstream errors surface as the client's typed errors", async () => {
    // Overloaded however often routing asks again (its retry policy may retry a lone endpoint).
    emu.enqueue({ fault: 'status', status: 529 }, { fault: 'status', status: 529 }, { fault: 'status', status: 529 });
    await assert.rejects(
      client.chat.completions.create({ model: 'acme/claude-mock', messages: [{ role: 'user', content: 'x' }] }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.InternalServerError);
        assert.equal(err.status, 502);
        assert.equal(err.type, 'provider_error');
        assert.equal(err.code, 'provider_error');
        return true;
      },
    );

    emu.reset();
    emu.enqueue({
      fault: 'status',
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
    });
    await assert.rejects(
      client.chat.completions.create({ model: 'acme/claude-mock', messages: [{ role: 'user', content: 'x' }] }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError);
        assert.equal(err.code, 'upstream_rejected_request');
        assert.match(err.message, /prompt is too long/);
        return true;
      },
    );
  });

  test('an overloaded endpoint falls over to the other provider; a rejected request does not', async () => {
    // Which of the two goes first is routing's draw; whichever it is answers 529.
    emu.enqueue({ fault: 'status', status: 529 }, { text: 'From the backup.' });
    const c = await client.chat.completions.create({ model: 'acme/claude-ha', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(c.choices[0]!.message.content, 'From the backup.');
    assert.deepEqual(emu.requests.map((r) => `${r.path} ${String(r.headers['x-api-key'])} ${r.body.model}`).sort(), [
      '/v1/messages sk-ant-b claude-mock-b',
      '/v1/messages sk-ant-c claude-mock-c',
    ]);

    emu.reset();
    emu.enqueue({ fault: 'status', status: 400 }, { text: 'never' });
    await assert.rejects(
      client.chat.completions.create({ model: 'acme/claude-ha', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.BadRequestError,
    );
    assert.equal(emu.requests.length, 1);
  });

  test("an error event in the middle of a stream is thrown by the client's iterator, after the text so far", async () => {
    emu.enqueue({ fault: 'stream-error', afterChunks: 4 });
    const stream = await client.chat.completions.create({
      model: 'acme/claude-mock',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    let text = '';
    await assert.rejects(async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    }, OpenAI.APIError);
    assert.equal(text, 'Hello ');
  });
});
