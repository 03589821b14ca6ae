import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { countTokens } from '../../src/canonical/bpe-tokenizers.ts';
import type { StreamPart } from '../../src/canonical/stream-part.ts';
import type { HttpProviderAdapter, ProviderAdapter } from '../../src/providers/types.ts';

// POST /v1/messages over HTTP against an OpenAI-format upstream: what an Anthropic-format
// client sends must reach a non-Anthropic provider intact, and come back in Anthropic's shape.

/** acme/mock-1 (with a dated alias) on the emulator, and two models sharing the bare name `dup`. */
function config(baseUrl: string): string {
  const model = (id: string, aliases = '[]') => `
  - id: ${id}
    name: ${id}
    context_length: 32000
    aliases: ${aliases}
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }`;
  return `sim: false
providers:
  - id: local
    kind: openai
    base_url: ${baseUrl}
    api_key: upstream-secret
models:${model('acme/mock-1', '[mock-1-20250101]')}${model('acme/dup')}${model('beta/dup')}
`;
}

const user = (content: unknown) => [{ role: 'user', content }];

/** An adapter whose streamed answers report their usage first, right after the stream starts. */
function usageFirst(adapter: HttpProviderAdapter): HttpProviderAdapter {
  return {
    ...adapter,
    createStreamDecoder(endpoint, emit) {
      const held: StreamPart[] = [];
      const decoder = adapter.createStreamDecoder(endpoint, (part) => held.push(part));
      return {
        onEvent: (event) => decoder.onEvent(event),
        end() {
          decoder.end();
          const usage = held.filter((p) => p.type === 'usage');
          const start = held.filter((p) => p.type === 'stream-start');
          for (const part of [...start, ...usage, ...held.filter((p) => p.type !== 'usage' && p.type !== 'stream-start')]) emit(part);
        },
      };
    },
  };
}

interface SseEvent {
  event: string;
  data: any;
}

/** Anthropic SSE: every event has an `event:` line and a data payload of the same type. */
function events(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block.length === 0) continue;
    const lines = block.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
    assert.ok(event !== undefined && data !== undefined, `event and data lines: ${block}`);
    const parsed = JSON.parse(data);
    assert.equal(parsed.type, event);
    out.push({ event, data: parsed });
  }
  return out;
}

describe('POST /v1/messages against an OpenAI-format upstream', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let url: string;
  let auth: Record<string, string>;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: config(emu.baseUrl) });
    url = `${gw.origin}/v1/messages`;
    auth = { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('a plain request reaches the upstream translated, and the answer is an Anthropic Message', async () => {
    emu.enqueue({ text: 'Hi there', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const res = await postJson(
      url,
      {
        model: 'acme/mock-1',
        max_tokens: 256,
        system: 'Be brief.',
        temperature: 0.2,
        stop_sequences: ['END'],
        metadata: { user_id: 'user-42' },
        messages: user('Hello'),
      },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    const sent = emu.requests[0]!.body;
    assert.equal(sent.model, 'mock-model');
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
    assert.equal(sent.max_tokens, 256);
    assert.equal(sent.temperature, 0.2);
    assert.deepEqual(sent.stop, ['END']);
    assert.equal(sent.user, 'user-42');
    assert.equal('top_p' in sent, false, 'parameters the client did not set are not invented');
    assert.deepEqual(res.json, {
      id: res.headers.get('x-generation-id'),
      type: 'message',
      role: 'assistant',
      model: 'acme/mock-1',
      provider: 'local',
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      // 12 × $0.000001 + 3 × $0.000002, as on the chat endpoint.
      usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3, cost: 0.000018 },
    });
  });

  test('cached prompt tokens are reported apart from input_tokens, as Anthropic does', async () => {
    emu.enqueue({ text: 'x', usage: { prompt_tokens: 1000, completion_tokens: 5, cached_tokens: 800 } });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 16, messages: user('hi') }, auth);
    const { cost: _cost, ...tokens } = res.json.usage;
    assert.deepEqual(tokens, { input_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, output_tokens: 5 });
  });

  test('streaming: event lines, message_start first, one text block, message_delta with usage, message_stop last', async () => {
    emu.enqueue({ text: 'one two three', chunks: 3, usage: { prompt_tokens: 5, completion_tokens: 3 } });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 64, stream: true, messages: user('count') }, auth);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(emu.requests[0]!.body.stream, true);
    const evs = events(res.text);
    assert.deepEqual(
      evs.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    const start = evs[0]!.data.message;
    assert.equal(start.id, res.headers.get('x-generation-id'));
    assert.equal(start.model, 'acme/mock-1');
    assert.equal(start.provider, 'local');
    assert.equal(start.stop_reason, null);
    assert.ok(start.usage.input_tokens > 0);
    assert.equal(
      evs
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join(''),
      'one two three',
    );
    assert.deepEqual(evs[6]!.data.delta, { stop_reason: 'end_turn', stop_sequence: null });
    assert.equal(evs[6]!.data.usage.output_tokens, 3);
    assert.equal(evs[6]!.data.usage.input_tokens, 5);
    // 5 × $0.000001 + 3 × $0.000002: the settled cost, in the final usage.
    assert.equal(evs[6]!.data.usage.cost, 0.000011);
  });

  test('an upstream whose usage comes before the answer: message_start reports its input and cache tokens, not an estimate', async () => {
    // The OpenAI-format adapter, rewired to report usage first (as some upstreams do).
    const adapters = gw.services.adapters as Map<string, ProviderAdapter>;
    const original = adapters.get('openai') as HttpProviderAdapter;
    adapters.set('openai', usageFirst(original));
    try {
      for (const chatUpstream of [false, true]) {
        emu.enqueue({ text: 'one two', chunks: 2, usage: { prompt_tokens: 1234, completion_tokens: 2, cached_tokens: 1000 } });
        const path = chatUpstream ? `${gw.baseUrl}/chat/completions` : url;
        const body = chatUpstream
          ? { model: 'acme/mock-1', stream: true, stream_options: { include_usage: true }, messages: user('count') }
          : { model: 'acme/mock-1', max_tokens: 64, stream: true, messages: user('count') };
        const res = await postJson(path, body, chatUpstream ? { authorization: `Bearer ${gw.key}` } : auth);
        assert.equal(res.status, 200, res.text);
        if (chatUpstream) {
          // The chat dialect's output is as before: usage in the last chunk only.
          const chunks = res.text
            .split('\n\n')
            .filter((l) => l.startsWith('data: {'))
            .map((l) => JSON.parse(l.slice(6)));
          assert.equal(chunks.filter((c) => c.usage !== undefined).length, 1);
          assert.equal(chunks.at(-1).usage.prompt_tokens, 1234);
          continue;
        }
        const evs = events(res.text);
        assert.deepEqual(evs[0]!.data.message.usage, {
          input_tokens: 234,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 1000,
          output_tokens: 1,
        });
        const delta = evs.find((e) => e.event === 'message_delta')!.data.usage;
        assert.equal(delta.input_tokens, 234);
        assert.equal(delta.cache_read_input_tokens, 1000);
        assert.equal(delta.output_tokens, 2);
      }
    } finally {
      adapters.set('openai', original);
    }
  });

  test('a tool round trip: tool_use out, tool_result back in, translated both ways', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather in a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    emu.enqueue({ toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const first = await postJson(url, { model: 'acme/mock-1', max_tokens: 256, tools, messages: user('Weather in Oslo?') }, auth);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(emu.requests[0]!.body.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: tools[0]!.input_schema } },
    ]);
    assert.equal(first.json.stop_reason, 'tool_use');
    assert.deepEqual(first.json.content, [{ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Oslo' } }]);

    emu.enqueue({ text: 'It is 3°C in Oslo.' });
    const second = await postJson(
      url,
      {
        model: 'acme/mock-1',
        max_tokens: 256,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.json.content },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_abc', content: '{"temp_c": 3}' },
              { type: 'text', text: 'Thanks!' },
            ],
          },
        ],
      },
      auth,
    );
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.content[0].text, 'It is 3°C in Oslo.');
    const upstream = emu.requests[1]!.body.messages;
    assert.deepEqual(upstream[1], {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    });
    assert.deepEqual(upstream[2], { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c": 3}' });
    assert.deepEqual(upstream[3], { role: 'user', content: 'Thanks!' });
  });

  test('a streamed tool call: tool_use block with input_json_delta fragments that join into the arguments', async () => {
    emu.enqueue({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' }] });
    const res = await postJson(
      url,
      {
        model: 'acme/mock-1',
        max_tokens: 64,
        stream: true,
        messages: user('weather?'),
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      },
      auth,
    );
    const evs = events(res.text);
    const start = evs.find((e) => e.event === 'content_block_start')!;
    assert.deepEqual(start.data.content_block, { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} });
    const args = evs
      .filter((e) => e.data.delta?.type === 'input_json_delta')
      .map((e) => e.data.delta.partial_json)
      .join('');
    assert.deepEqual(JSON.parse(args), { city: 'Rome' });
    assert.equal(evs.find((e) => e.event === 'message_delta')!.data.delta.stop_reason, 'tool_use');
  });

  test('upstream reasoning becomes thinking blocks before the text, streamed and not', async () => {
    emu.enqueue({ reasoning: 'First, think.', text: 'Answer.' });
    const plain = await postJson(
      url,
      { model: 'acme/mock-1', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: user('q') },
      auth,
    );
    assert.deepEqual(plain.json.content, [
      { type: 'thinking', thinking: 'First, think.', signature: '' },
      { type: 'text', text: 'Answer.' },
    ]);

    emu.enqueue({ reasoning: 'First, think.', text: 'Answer.' });
    const streamed = await postJson(
      url,
      { model: 'acme/mock-1', max_tokens: 2048, stream: true, thinking: { type: 'adaptive' }, messages: user('q') },
      auth,
    );
    const evs = events(streamed.text);
    const blocks = evs.filter((e) => e.event === 'content_block_start').map((e) => [e.data.index, e.data.content_block.type]);
    assert.deepEqual(blocks, [
      [0, 'thinking'],
      [1, 'text'],
    ]);
    assert.equal(
      evs
        .filter((e) => e.data.delta?.type === 'thinking_delta')
        .map((e) => e.data.delta.thinking)
        .join(''),
      'First, think.',
    );
  });

  test('a role:"system" message mid-conversation reaches the upstream as a system message at its place', async () => {
    emu.enqueue({ text: 'ok' });
    await postJson(
      url,
      {
        model: 'acme/mock-1',
        max_tokens: 16,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'system', content: 'Be careful now.' },
          { role: 'user', content: 'c' },
        ],
      },
      auth,
    );
    assert.deepEqual(
      emu.requests[0]!.body.messages.map((m: any) => m.role),
      ['user', 'assistant', 'system', 'user'],
    );
    assert.equal(emu.requests[0]!.body.messages[2].content, 'Be careful now.');
  });

  test('a base64 image reaches an OpenAI-format upstream as a data: URI', async () => {
    emu.enqueue({ text: 'A cat.' });
    await postJson(
      url,
      {
        model: 'acme/mock-1',
        max_tokens: 16,
        messages: user([
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'text', text: 'What is it?' },
        ]),
      },
      auth,
    );
    assert.deepEqual(emu.requests[0]!.body.messages[0].content[0], {
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' },
    });
  });

  test('an upstream that ran out of tokens (length) is stop_reason max_tokens', async () => {
    emu.enqueue({ text: 'cut', finishReason: 'length' });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 1, messages: user('long') }, auth);
    assert.equal(res.json.stop_reason, 'max_tokens');
  });

  test("an upstream 5xx is a 502 in the Anthropic envelope with the spec's record", async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 16, messages: user('hi') }, auth);
    assert.equal(res.status, 502);
    assert.equal(res.json.type, 'error');
    assert.equal(res.json.error.type, 'provider_error');
    assert.equal(res.json.error.code, 'provider_error');
    assert.equal(res.json.error.metadata.provider_name, 'local');
    assert.equal(typeof res.json.error.message, 'string');
  });

  test('a streamed request that fails before the answer is still a plain HTTP error', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 503 });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 16, stream: true, messages: user('hi') }, auth);
    assert.equal(res.status, 502);
    assert.equal(res.json.type, 'error');
  });

  test('a failure mid-stream is an error event after what was sent, and the stream ends', async () => {
    emu.enqueue({ fault: 'stream-error', afterChunks: 2, error: { message: 'exploded', type: 'server_error' } });
    const res = await postJson(url, { model: 'acme/mock-1', max_tokens: 16, stream: true, messages: user('hi') }, auth);
    assert.equal(res.status, 200);
    const evs = events(res.text);
    assert.equal(evs[0]!.event, 'message_start');
    const last = evs.at(-1)!;
    assert.equal(last.event, 'error');
    assert.equal(last.data.error.type, 'provider_error');
    assert.equal(evs.filter((e) => e.event === 'error').length, 1, 'one error event');
    assert.equal(
      evs.some((e) => e.event === 'message_stop'),
      false,
    );
  });

  describe('authentication', () => {
    const body = { model: 'acme/mock-1', max_tokens: 16, messages: user('hi') };

    test('x-api-key alone and Authorization: Bearer alone both work', async () => {
      assert.equal((await postJson(url, body, { 'x-api-key': gw.key })).status, 200);
      assert.equal((await postJson(url, body, { authorization: `Bearer ${gw.key}` })).status, 200);
    });

    test('when both are present, Authorization wins', async () => {
      const bearerGood = await postJson(url, body, { authorization: `Bearer ${gw.key}`, 'x-api-key': 'sk-wrong' });
      assert.equal(bearerGood.status, 200, bearerGood.text);
      const bearerBad = await postJson(url, body, { authorization: 'Bearer sk-wrong', 'x-api-key': gw.key });
      assert.equal(bearerBad.status, 401);
    });

    test('no key is a 401 authentication_error in the Anthropic envelope', async () => {
      const res = await postJson(url, body, { 'anthropic-version': '2023-06-01' });
      assert.equal(res.status, 401);
      assert.equal(res.json.type, 'error');
      assert.equal(res.json.error.type, 'authentication_error');
      assert.equal(res.json.error.code, 'authentication_required');
    });
  });

  describe('version headers, query strings and paths', () => {
    const body = { model: 'acme/mock-1', max_tokens: 16, messages: user('hi') };

    for (const version of ['2023-06-01', '2026-10-21']) {
      test(`anthropic-version ${version} with anthropic-beta flags is accepted`, async () => {
        const res = await postJson(url, body, {
          'x-api-key': gw.key,
          'anthropic-version': version,
          'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,effort-2025-11-24',
        });
        assert.equal(res.status, 200, res.text);
      });
    }

    for (const path of ['/v1/messages?beta=true', '/api/v1/messages', '/v1/v1/messages', '/api/v1/v1/messages?beta=true']) {
      test(`${path} is the messages endpoint`, async () => {
        const res = await postJson(`${gw.origin}${path}`, body, auth);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.type, 'message');
      });
    }
  });

  describe('model names', () => {
    for (const name of ['mock-1', 'mock-1-20250101', 'acme/mock-1']) {
      test(`"${name}" resolves to acme/mock-1`, async () => {
        const res = await postJson(url, { model: name, max_tokens: 16, messages: user('hi') }, auth);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.model, 'acme/mock-1');
      });
    }

    for (const name of ['dup', 'nobody/nothing', 'claude-3-opus']) {
      test(`"${name}" (ambiguous or unknown) is a clear model_not_found`, async () => {
        const res = await postJson(url, { model: name, max_tokens: 16, messages: user('hi') }, auth);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.type, 'error');
        assert.equal(res.json.error.type, 'invalid_request_error');
        assert.equal(res.json.error.code, 'model_not_found');
        assert.ok(res.json.error.message.includes(name));
        assert.equal(emu.requests.length, 0);
      });
    }
  });

  describe('POST /v1/messages/count_tokens', () => {
    const countUrl = () => `${gw.origin}/v1/messages/count_tokens`;

    test('returns a real estimate without calling the upstream, and needs no max_tokens', async () => {
      const short = await postJson(countUrl(), { model: 'acme/mock-1', messages: user('Hello') }, auth);
      assert.equal(short.status, 200, short.text);
      assert.deepEqual(Object.keys(short.json), ['input_tokens']);
      assert.ok(short.json.input_tokens > 0);
      const long = await postJson(
        countUrl(),
        {
          model: 'mock-1',
          system: 'You are a careful assistant.',
          messages: user('Hello '.repeat(200)),
          tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
        },
        auth,
      );
      assert.ok(long.json.input_tokens > short.json.input_tokens + 150, `${long.json.input_tokens} vs ${short.json.input_tokens}`);
      assert.equal(emu.requests.length, 0);
    });

    test('counts with a real tokenizer (o200k_base, with the chat framing), not a character ratio', async () => {
      const text = '안녕하세요, 세계! 오늘은 날씨가 정말 좋네요. こんにちは世界';
      const res = await postJson(countUrl(), { model: 'acme/mock-1', messages: user(text) }, auth);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.input_tokens, 7 + countTokens(text, 'o200k_base'));
    });

    test('is reachable under /v1/v1 too, validates like a message request, and needs a key', async () => {
      const twice = await postJson(
        `${gw.origin}/v1/v1/messages/count_tokens?beta=true`,
        { model: 'acme/mock-1', messages: user('Hi') },
        auth,
      );
      assert.equal(twice.status, 200);
      const unknown = await postJson(countUrl(), { model: 'nobody/nothing', messages: user('Hi') }, auth);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.error.code, 'model_not_found');
      const invalid = await postJson(countUrl(), { model: 'acme/mock-1', messages: [] }, auth);
      assert.equal(invalid.status, 400);
      assert.equal(invalid.json.type, 'error');
      const anonymous = await postJson(countUrl(), { model: 'acme/mock-1', messages: user('Hi') });
      assert.equal(anonymous.status, 401);
    });
  });
});
