import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { anthropicUpstreamConfig, clientFor, textOf, WEATHER_TOOL, type SdkUnderTest } from './anthropic-sdk-support.ts';

// Anthropic in, Anthropic out: an official SDK through switchyard to an Anthropic-format
// upstream (the native adapter and the Anthropic emulator). What Anthropic's own API would
// have answered must arrive unchanged: usage with cache tokens, thinking signatures and
// redacted thinking (also replayed upstream), cache breakpoints, Anthropic-only stop reasons.

export function defineAnthropicUpstreamCases(sdk: SdkUnderTest): void {
  describe(`${sdk.name} against switchyard (Anthropic-format upstream)`, () => {
    let emu: AnthropicEmulator;
    let gw: TestGateway;
    let client: any;

    before(async () => {
      emu = await startAnthropicEmulator();
      gw = await startTestGateway({ yaml: anthropicUpstreamConfig(emu.baseUrl) });
      client = clientFor(sdk, gw, []);
    });
    after(async () => {
      await gw.close();
      await emu.close();
    });
    beforeEach(() => emu.reset());

    test("plain message: the upstream's usage comes back unchanged, cache tokens apart from input_tokens", async () => {
      emu.enqueue({
        text: 'Paris.',
        usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 900, cache_creation_input_tokens: 40 },
      });
      const msg = await client.messages.create({
        model: 'claude-mock-20250101',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Capital of France?' }],
      });
      assert.equal(textOf(msg), 'Paris.');
      assert.equal(msg.stop_reason, 'end_turn');
      assert.equal(msg.model, 'acme/claude-mock');
      assert.equal(msg.usage.input_tokens, 12);
      assert.equal(msg.usage.cache_read_input_tokens, 900);
      assert.equal(msg.usage.cache_creation_input_tokens, 40);
      assert.equal(msg.usage.output_tokens, 3);
      const sent = emu.requests[0]!;
      assert.equal(sent.body.model, 'claude-mock-1');
      assert.equal(sent.headers['x-api-key'], 'sk-ant-upstream');
    });

    test('cache breakpoints on system, tools and messages reach the upstream intact', async () => {
      emu.enqueue({ text: 'ok' });
      await client.messages.create({
        model: 'acme/claude-mock',
        max_tokens: 64,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Long context here.', cache_control: { type: 'ephemeral' } }] }],
      });
      const body = emu.requests[0]!.body;
      assert.deepEqual(body.system, [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }]);
      assert.deepEqual(body.tools[0].cache_control, { type: 'ephemeral', ttl: '1h' });
      assert.deepEqual(body.messages[0].content[0], { type: 'text', text: 'Long context here.', cache_control: { type: 'ephemeral' } });
    });

    test('streamed: finalMessage() and the raw event order', async () => {
      emu.enqueue({ text: 'The quick brown fox', chunks: 4, usage: { input_tokens: 4, output_tokens: 4 } });
      const final = await client.messages
        .stream({ model: 'acme/claude-mock', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] })
        .finalMessage();
      assert.equal(textOf(final), 'The quick brown fox');
      assert.equal(final.usage.output_tokens, 4);
      assert.equal(final.usage.input_tokens, 4);

      emu.enqueue({ text: 'one two', chunks: 2 });
      const types: string[] = [];
      for await (const event of await client.messages.create({
        model: 'acme/claude-mock',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'go' }],
      }))
        types.push(event.type);
      assert.deepEqual(types, [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
    });

    test('thinking: signatures and redacted thinking come back intact, and go back upstream unchanged', async () => {
      emu.enqueue({
        thinking: 'Check the weather first.',
        signature: 'EsEC-original-signature',
        redacted: 'REDACTED-BLOB',
        toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      });
      const params = {
        model: 'acme/claude-mock',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      };
      const first = await client.messages.stream(params).finalMessage();
      assert.deepEqual(
        first.content.map((b: any) => b.type),
        ['thinking', 'redacted_thinking', 'tool_use'],
      );
      assert.equal(first.content[0].thinking, 'Check the weather first.');
      assert.equal(first.content[0].signature, 'EsEC-original-signature');
      assert.equal(first.content[1].data, 'REDACTED-BLOB');
      assert.deepEqual(first.content[2].input, { city: 'Oslo' });
      assert.equal(first.stop_reason, 'tool_use');
      assert.deepEqual(emu.requests[0]!.body.thinking, { type: 'enabled', budget_tokens: 2048 });

      emu.enqueue({ text: 'It is raining in Oslo.' });
      const second = await client.messages.create({
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Rain, 4°C' }] },
        ],
      });
      assert.equal(textOf(second), 'It is raining in Oslo.');
      const replay = emu.requests[1]!.body.messages;
      assert.deepEqual(replay[1].content.slice(0, 2), [
        { type: 'thinking', thinking: 'Check the weather first.', signature: 'EsEC-original-signature' },
        { type: 'redacted_thinking', data: 'REDACTED-BLOB' },
      ]);
      assert.deepEqual(replay[1].content[2], { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } });
      assert.equal(replay[2].role, 'user');
      assert.equal(replay[2].content[0].type, 'tool_result');
      assert.equal(replay[2].content[0].tool_use_id, 'toolu_01');
    });

    test('thinking display omitted: asked of the upstream, the empty thinking and its signature passed through and replayed unchanged', async () => {
      const thinking = { type: 'enabled', budget_tokens: 2048, display: 'omitted' };
      const params = {
        model: 'acme/claude-mock',
        max_tokens: 4096,
        thinking,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      };
      // What Anthropic answers to display: 'omitted': thinking blocks with empty text and whole signatures.
      const answer = {
        blocks: [
          { type: 'thinking' as const, thinking: '', signature: 'EsEC-omitted/sig+==' },
          { type: 'tool_use' as const, id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      };
      emu.enqueue(answer);
      const streamed = await client.messages.stream(params).finalMessage();
      emu.enqueue(answer);
      const plain = await client.messages.create(params);
      for (const request of emu.requests)
        assert.deepEqual(request.body.thinking, { type: 'enabled', budget_tokens: 2048, display: 'omitted' });
      for (const msg of [streamed, plain]) {
        assert.deepEqual(msg.content[0], { type: 'thinking', thinking: '', signature: 'EsEC-omitted/sig+==' });
        assert.equal(msg.content[1].type, 'tool_use');
      }

      emu.enqueue({ text: 'Rain.' });
      await client.messages.create({
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: plain.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Rain, 4°C' }] },
        ],
      });
      const replay = emu.requests[2]!.body.messages[1];
      assert.equal(JSON.stringify(replay.content[0]), JSON.stringify({ type: 'thinking', thinking: '', signature: 'EsEC-omitted/sig+==' }));
    });

    test('stop reasons the upstream gives are kept: stop_sequence with its sequence, pause_turn', async () => {
      emu.enqueue({ text: 'one two', stopReason: 'stop_sequence', stopSequence: 'three' });
      const stopped = await client.messages.create({
        model: 'acme/claude-mock',
        max_tokens: 64,
        stop_sequences: ['three'],
        messages: [{ role: 'user', content: 'count' }],
      });
      assert.equal(stopped.stop_reason, 'stop_sequence');
      assert.equal(stopped.stop_sequence, 'three');
      assert.deepEqual(emu.requests[0]!.body.stop_sequences, ['three']);

      emu.enqueue({ text: 'partial', stopReason: 'pause_turn' });
      const paused = await client.messages
        .stream({ model: 'acme/claude-mock', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] })
        .finalMessage();
      assert.equal(paused.stop_reason, 'pause_turn');
    });

    test("an overloaded upstream is a 502 with the upstream's answer, also when its stream fails before any content", async () => {
      // The plan's only endpoint: tried, then retried twice, failing each time.
      for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 529 });
      await assert.rejects(
        client.messages.create({ model: 'acme/claude-mock', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        (err: any) =>
          err.status === 502 &&
          err.error.error.type === 'provider_error' &&
          JSON.stringify(err.error.error.metadata).includes('overloaded_error'),
      );
      // message_start and the block start carry no content: nothing was committed, so the
      // client still gets a status it can retry on.
      // The plan's only endpoint: tried, then retried twice, failing each time.
      for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'stream-error', afterChunks: 2 });
      await assert.rejects(
        client.messages.stream({ model: 'acme/claude-mock', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).finalMessage(),
        (err: any) => err.status === 502 && err.error.error.type === 'provider_error',
      );
    });

    test('an upstream error event after content has streamed is an error event to the client', async () => {
      emu.enqueue({ fault: 'stream-error', afterChunks: 5 });
      let streamed = '';
      const stream = client.messages.stream({ model: 'acme/claude-mock', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
      stream.on('text', (t: string) => {
        streamed += t;
      });
      await assert.rejects(
        stream.finalMessage(),
        (err: any) => err.constructor.name === 'APIError' && err.status === undefined && err.error?.error?.type === 'provider_error',
      );
      assert.ok(streamed.length > 0, 'some text arrived before the error');
    });
  });
}
