import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { clientFor, textOf, WEATHER_TOOL, type SdkUnderTest, type SeenRequest } from './anthropic-sdk-support.ts';
import { defineAnthropicUpstreamCases } from './anthropic-sdk-native-upstream-cases.ts';

// The contract suite for an official Anthropic SDK pointed at switchyard: what a user's
// code sees through the client is what is tested. Each SDK release runs the same cases
// (anthropic-sdk.test.ts: 1.x, anthropic-sdk-0x.test.ts: 0.x); they differ in how they
// authenticate and which API version they announce, which each asserts on the wire.

export function defineAnthropicSdkSuite(sdk: SdkUnderTest): void {
  describe(`${sdk.name} against switchyard (OpenAI-format upstream)`, () => {
    let emu: OpenAIChatEmulator;
    let gw: TestGateway;
    let client: any;
    const seen: SeenRequest[] = [];

    before(async () => {
      emu = await startOpenAIChatEmulator();
      gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl) });
      client = clientFor(sdk, gw, seen);
    });
    after(async () => {
      await gw.close();
      await emu.close();
    });
    beforeEach(() => {
      emu.reset();
      seen.length = 0;
    });

    test('plain message: text, stop reason, usage, model; the client authenticates its own way', async () => {
      emu.enqueue({ text: 'Paris.', usage: { prompt_tokens: 9, completion_tokens: 2 } });
      const msg = await client.messages.create({
        model: 'acme/mock-1',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Capital of France?' }],
      });
      assert.equal(msg.type, 'message');
      assert.equal(msg.role, 'assistant');
      assert.equal(textOf(msg), 'Paris.');
      assert.equal(msg.stop_reason, 'end_turn');
      assert.equal(msg.model, 'acme/mock-1');
      assert.equal(msg.usage.input_tokens, 9);
      assert.equal(msg.usage.output_tokens, 2);
      const sent = seen[0]!;
      assert.equal(new URL(sent.url).pathname, '/v1/messages');
      assert.equal(sent.headers.get('anthropic-version'), sdk.expect.version);
      if (sdk.expect.authHeader === 'authorization') assert.equal(sent.headers.get('authorization'), `Bearer ${gw.key}`);
      else {
        assert.equal(sent.headers.get('x-api-key'), gw.key);
        assert.equal(sent.headers.get('authorization'), null);
      }
    });

    test('a bare model name works and system prompts arrive upstream', async () => {
      emu.enqueue({ text: 'ok' });
      const msg = await client.messages.create({
        model: 'mock-1',
        max_tokens: 16,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(textOf(msg), 'ok');
      assert.deepEqual(emu.requests[0]!.body.messages[0], { role: 'system', content: 'Be brief.' });
    });

    test('messages.stream: text events and finalMessage()', async () => {
      emu.enqueue({ text: 'The quick brown fox', chunks: 4, usage: { prompt_tokens: 4, completion_tokens: 4 } });
      const stream = client.messages.stream({ model: 'acme/mock-1', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] });
      let streamed = '';
      stream.on('text', (delta: string) => {
        streamed += delta;
      });
      const final = await stream.finalMessage();
      assert.equal(streamed, 'The quick brown fox');
      assert.equal(textOf(final), 'The quick brown fox');
      assert.equal(final.stop_reason, 'end_turn');
      assert.equal(final.usage.output_tokens, 4);
      assert.equal(final.usage.input_tokens, 4);
    });

    test('raw stream: true iteration yields the documented event order', async () => {
      emu.enqueue({ text: 'one two', chunks: 2 });
      const stream = await client.messages.create({
        model: 'acme/mock-1',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'go' }],
      });
      const types: string[] = [];
      let text = '';
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      }
      assert.deepEqual(types, [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      assert.equal(text, 'one two');
    });

    test('tools: a tool_use round trip, the second turn carrying the tool_result upstream', async () => {
      emu.enqueue({ toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
      const first = await client.messages.create({
        model: 'acme/mock-1',
        max_tokens: 256,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      assert.equal(first.stop_reason, 'tool_use');
      const use = first.content.find((b: any) => b.type === 'tool_use');
      assert.deepEqual({ id: use.id, name: use.name, input: use.input }, { id: 'call_abc', name: 'get_weather', input: { city: 'Oslo' } });

      emu.enqueue({ text: 'It is 3°C in Oslo.' });
      const second = await client.messages.create({
        model: 'acme/mock-1',
        max_tokens: 256,
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp_c": 3}' }] },
        ],
      });
      assert.equal(textOf(second), 'It is 3°C in Oslo.');
      const upstream = emu.requests[1]!.body.messages;
      assert.equal(upstream[1].tool_calls[0].id, 'call_abc');
      assert.deepEqual(upstream[2], { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c": 3}' });
    });

    test('tools, streamed: finalMessage() has the parsed input', async () => {
      emu.enqueue({ text: 'Let me check.', toolCalls: [{ id: 'call_s', name: 'get_weather', arguments: '{"city":"Rome"}' }] });
      const final = await client.messages
        .stream({ model: 'acme/mock-1', max_tokens: 256, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Weather in Rome?' }] })
        .finalMessage();
      assert.deepEqual(
        final.content.map((b: any) => b.type),
        ['text', 'tool_use'],
      );
      assert.deepEqual(final.content[1].input, { city: 'Rome' });
      assert.equal(final.stop_reason, 'tool_use');
    });

    test("thinking: the upstream's reasoning comes back as a thinking block, plain and streamed", async () => {
      emu.enqueue({ reasoning: 'Two and two make four.', text: '4' });
      const msg = await client.messages.create({
        model: 'acme/mock-1',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: [{ role: 'user', content: '2+2?' }],
      });
      assert.deepEqual(
        msg.content.map((b: any) => b.type),
        ['thinking', 'text'],
      );
      assert.equal(msg.content[0].thinking, 'Two and two make four.');

      emu.enqueue({ reasoning: 'Two and two make four.', text: '4' });
      const stream = client.messages.stream({
        model: 'acme/mock-1',
        max_tokens: 4096,
        thinking: { type: 'adaptive' },
        messages: [{ role: 'user', content: '2+2?' }],
      });
      let thinking = '';
      stream.on('thinking', (delta: string) => {
        thinking += delta;
      });
      const final = await stream.finalMessage();
      assert.equal(thinking, 'Two and two make four.');
      assert.equal(textOf(final), '4');
    });

    test('count_tokens returns an estimate', async () => {
      const counted = await client.messages.countTokens({
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'How many tokens is this?' }],
      });
      assert.ok(counted.input_tokens > 0);
      assert.equal(emu.requests.length, 0);
    });

    test("errors: upstream failure, bad request, bad key — the SDK's error classes by status, the envelope kept", async () => {
      // The plan's only endpoint: tried, then retried twice, failing each time.
      for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
      await assert.rejects(
        client.messages.create({ model: 'acme/mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        (err: any) => err.status === 502 && err.error?.type === 'error' && err.error.error.type === 'provider_error',
      );
      await assert.rejects(
        client.messages.create({ model: 'acme/mock-1', max_tokens: 16, messages: [] }),
        (err: any) => err.status === 400 && err.constructor.name === 'BadRequestError' && err.error.error.code === 'invalid_parameter',
      );
      await assert.rejects(
        client.messages.create({ model: 'nobody/nothing', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        (err: any) => err.status === 400 && err.error.error.code === 'model_not_found',
      );
      const stranger = clientFor(sdk, gw, [], 'sk-not-a-key');
      await assert.rejects(
        stranger.messages.create({ model: 'acme/mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        (err: any) => err.status === 401 && err.constructor.name === 'AuthenticationError',
      );
    });

    test('a failure mid-stream surfaces as an error from the stream', async () => {
      emu.enqueue({ fault: 'stream-error', afterChunks: 2 });
      const stream = client.messages.stream({ model: 'acme/mock-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      await assert.rejects(
        stream.finalMessage(),
        (err: any) => err.constructor.name === 'APIError' && err.error?.error?.type === 'provider_error',
      );
    });
  });

  describe(`${sdk.name} against switchyard (sim provider)`, () => {
    let gw: TestGateway;
    let client: any;

    before(async () => {
      gw = await startTestGateway({ yaml: SIM_ONLY });
      client = clientFor(sdk, gw, []);
    });
    after(() => gw.close());

    test('plain and streamed answers agree', async () => {
      const params = {
        model: 'switchyard/sim-fast',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Say something about trains.' }],
      };
      const plain = await client.messages.create(params);
      const streamed = await client.messages.stream(params).finalMessage();
      assert.ok(textOf(plain).length > 0);
      assert.equal(textOf(streamed), textOf(plain));
      assert.equal(streamed.stop_reason, plain.stop_reason);
    });

    test('a tool round trip with schema-valid input', async () => {
      const first = await client.messages.create({
        model: 'switchyard/sim-fast',
        max_tokens: 500,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Use get_weather for Oslo.' }],
      });
      assert.equal(first.stop_reason, 'tool_use');
      const use = first.content.find((b: any) => b.type === 'tool_use');
      assert.equal(typeof use.input.city, 'string');
      const second = await client.messages
        .stream({
          model: 'switchyard/sim-fast',
          max_tokens: 500,
          tools: [WEATHER_TOOL],
          messages: [
            { role: 'user', content: 'Use get_weather for Oslo.' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21°C' }] },
          ],
        })
        .finalMessage();
      assert.equal(second.stop_reason, 'end_turn');
      assert.ok(textOf(second).length > 0);
    });

    test('thinking with a signature, replayed unchanged in the next turn', async () => {
      const params = {
        model: 'switchyard/sim-reasoner',
        max_tokens: 2000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Check get_weather for Oslo.' }],
      };
      const first = await client.messages.stream(params).finalMessage();
      const thinking = first.content.find((b: any) => b.type === 'thinking');
      assert.ok(thinking.thinking.length > 0);
      assert.ok(thinking.signature.length > 0, 'a signature arrives via signature_delta');
      const plain = await client.messages.create(params);
      assert.deepEqual(
        plain.content.find((b: any) => b.type === 'thinking'),
        thinking,
        'streamed and plain agree, signature included',
      );
      const use = first.content.find((b: any) => b.type === 'tool_use');
      const second = await client.messages.create({
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Rain.' }] },
        ],
      });
      assert.ok(textOf(second).length > 0);
    });
  });

  defineAnthropicUpstreamCases(sdk);
}
