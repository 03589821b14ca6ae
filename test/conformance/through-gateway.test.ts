import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { loadGeminiFixture, startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startOpenAIVendorUpstream } from './upstreams/openai-vendor-upstream.ts';
import type { Upstream } from './conformance-types.ts';

// The two provider quirks a client can only see whole, through a running gateway and the
// official openai client: a Gemini 3 tool round trip in the chat and responses dialects
// (the thought signature has to survive in the tool-call id, the responses `call_id`),
// and xAI's citations on the chat message.

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('through the gateway: Gemini 3 tool calls from chat and responses clients', () => {
  let emu: GeminiEmulator;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    emu = await startGeminiEmulator({ apiKey: 'gm-secret' });
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: google
    base_url: ${emu.baseUrl}
    api_key: gm-secret
models:
  - id: google/gemini-3-pro-preview
    context_length: 1048576
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: google
        model: gemini-3-pro-preview
        pricing: { prompt: "0.000002", completion: "0.000012" }
        data_collection: deny
`,
    });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  for (const stream of [false, true]) {
    it(`keeps the call's thought signature for the next turn (stream=${stream})`, async () => {
      const fixture = loadGeminiFixture('gemini-3-tool-call');
      const signature = (fixture.chunks[0] as any).candidates[0].content.parts[0].thoughtSignature as string;
      emu.enqueue({ replay: fixture }, { text: 'It is sunny in Paris.' });
      const ask = { role: 'user' as const, content: 'Weather in Paris?' };

      let call: { id: string; name: string; arguments: string };
      if (stream) {
        const chunks = await client.chat.completions.create({
          model: 'google/gemini-3-pro-preview',
          messages: [ask],
          tools: [WEATHER],
          stream: true,
        });
        let id = '';
        let name = '';
        let args = '';
        let finish: string | null = null;
        for await (const chunk of chunks) {
          const delta = chunk.choices[0]?.delta;
          for (const t of delta?.tool_calls ?? []) {
            id ||= t.id ?? '';
            name ||= t.function?.name ?? '';
            args += t.function?.arguments ?? '';
          }
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        assert.equal(finish, 'tool_calls');
        call = { id, name, arguments: args };
      } else {
        const first = await client.chat.completions.create({ model: 'google/gemini-3-pro-preview', messages: [ask], tools: [WEATHER] });
        assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
        const made = first.choices[0]!.message.tool_calls![0]!;
        assert.ok(made.type === 'function');
        call = { id: made.id, name: made.function.name, arguments: made.function.arguments };
      }
      assert.deepEqual({ name: call.name, arguments: JSON.parse(call.arguments) }, { name: 'get_weather', arguments: { city: 'Paris' } });

      // The client replays the conversation as chat clients do: the id, nothing else.
      const second = await client.chat.completions.create({
        model: 'google/gemini-3-pro-preview',
        tools: [WEATHER],
        messages: [
          ask,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
          },
          { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny"}' },
        ],
      });
      assert.equal(second.choices[0]!.message.content, 'It is sunny in Paris.');
      const replayed = emu.requests[1]!.body.contents[1];
      assert.deepEqual(replayed, {
        role: 'model',
        parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }],
      });
    });
  }

  for (const stream of [false, true]) {
    it(`keeps the call's thought signature through the responses dialect too, in the call_id (stream=${stream})`, async () => {
      const fixture = loadGeminiFixture('gemini-3-tool-call');
      const signature = (fixture.chunks[0] as any).candidates[0].content.parts[0].thoughtSignature as string;
      emu.enqueue({ replay: fixture }, { text: 'It is sunny in Paris.' });
      const tools = [
        {
          type: 'function' as const,
          name: 'get_weather',
          description: WEATHER.function.description,
          parameters: WEATHER.function.parameters,
          strict: false,
        },
      ];
      const ask = { role: 'user' as const, content: 'Weather in Paris?' };

      let call: { call_id: string; name: string; arguments: string };
      if (stream) {
        const events = await client.responses.create({ model: 'google/gemini-3-pro-preview', input: [ask], tools, stream: true });
        let done: any = null;
        for await (const event of events)
          if (event.type === 'response.output_item.done' && event.item.type === 'function_call') done = event.item;
        assert.ok(done !== null, 'a function_call item');
        call = { call_id: done.call_id, name: done.name, arguments: done.arguments };
      } else {
        const first = await client.responses.create({ model: 'google/gemini-3-pro-preview', input: [ask], tools });
        const made = first.output.find((item) => item.type === 'function_call');
        assert.ok(made !== undefined && made.type === 'function_call');
        call = { call_id: made.call_id, name: made.name, arguments: made.arguments };
      }
      assert.match(call.call_id, /^gsig_/, 'the signature rides in the call id');
      assert.deepEqual({ name: call.name, arguments: JSON.parse(call.arguments) }, { name: 'get_weather', arguments: { city: 'Paris' } });

      // The client replays the call item as it got it (call_id, name, arguments) and its output.
      const second = await client.responses.create({
        model: 'google/gemini-3-pro-preview',
        tools,
        input: [
          ask,
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' },
        ],
      });
      assert.equal(second.output_text, 'It is sunny in Paris.');
      const replayed = emu.requests[1]!.body.contents[1];
      assert.deepEqual(replayed, {
        role: 'model',
        parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }],
      });
    });
  }
});

describe('through the gateway: xAI citations on the chat message', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    upstream = await startOpenAIVendorUpstream('xai', 'xai-secret');
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: xai
    base_url: ${upstream.baseUrl}
    api_key: xai-secret
`,
    });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });
  beforeEach(() => upstream.reset());

  it('passes search_parameters through and returns the citations, streamed and not', async () => {
    const citations = ['https://example.com/news/1', 'https://x.com/i/status/2'];
    const search = { mode: 'on', return_citations: true };
    upstream.script({ text: 'Here is the news.', citations, usage: { input: 5, output: 4 } });
    upstream.script({ text: 'Here is the news.', citations, usage: { input: 5, output: 4 } });
    const body = { model: 'x-ai/grok-3-mini', messages: [{ role: 'user' as const, content: 'News?' }], search_parameters: search };
    const plain = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.deepEqual((plain.choices[0]!.message as unknown as { citations: string[] }).citations, citations);
    const stream = await client.chat.completions.create({ ...body, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    let streamed: string[] | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { citations?: string[] } | undefined;
      if (delta?.citations !== undefined) streamed = delta.citations;
    }
    assert.deepEqual(streamed, citations);
    assert.deepEqual(
      upstream.requests().map((r) => r.body.search_parameters),
      [search, search],
      'streamed and not',
    );
  });
});
