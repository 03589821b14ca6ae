import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

type Event = { type: string; sequence_number: number; [k: string]: any };

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('POST /v1/responses against an OpenAI-format upstream', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-secret' } });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  const post = (body: Record<string, unknown>) => postJson(`${gw.baseUrl}/responses`, { model: 'acme/mock-1', ...body }, auth);

  test('a plain request: instructions lead as a system message, and the answer has the response fields', async () => {
    emu.enqueue({ text: 'Paris.', usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 2 } });
    const res = await post({ input: 'Capital of France?', instructions: 'Be brief.', metadata: { ticket: 'T-1' }, temperature: 0.2 });
    assert.equal(res.status, 200, res.text);
    const sent = emu.requests[0]!.body;
    assert.equal(sent.model, 'mock-model');
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    assert.equal(sent.temperature, 0.2);

    const b = res.json;
    assert.equal(b.id, `resp_${res.headers.get('x-generation-id')!.slice('gen-'.length)}`);
    assert.equal(b.object, 'response');
    assert.equal(typeof b.created_at, 'number');
    assert.equal(b.created, b.created_at);
    assert.equal(b.status, 'completed');
    assert.equal(b.model, 'acme/mock-1');
    assert.equal(b.provider, 'local');
    assert.deepEqual(b.output, [
      {
        id: `msg_${b.id.slice(5)}_0`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Paris.', annotations: [] }],
      },
    ]);
    assert.deepEqual(b.metadata, { ticket: 'T-1' });
    assert.equal(b.instructions, 'Be brief.');
    assert.equal(b.temperature, 0.2);
    // The spec's usage fields beside the vendor's; 12 × 0.000001 + 3 × 0.000002 USD.
    assert.equal(b.usage.prompt_tokens, 12);
    assert.equal(b.usage.completion_tokens, 3);
    assert.equal(b.usage.total_tokens, 15);
    assert.equal(b.usage.input_tokens, 12);
    assert.equal(b.usage.output_tokens, 3);
    assert.equal(b.usage.input_tokens_details.cached_tokens, 2);
    assert.equal(b.usage.cache_read_input_tokens, 2);
    assert.equal(b.usage.cost, 0.000018);
  });

  test("the spec's own path, /api/v1/responses, serves plain and streamed answers", async () => {
    const url = `${gw.origin}/api/v1/responses`;
    emu.enqueue({ text: 'Paris.', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const plain = await postJson(url, { model: 'acme/mock-1', input: 'Capital of France?' }, auth);
    assert.equal(plain.status, 200, plain.text);
    assert.equal(emu.requests[0]!.body.model, 'mock-model');
    assert.equal(plain.json.object, 'response');
    assert.equal(plain.json.id, `resp_${plain.headers.get('x-generation-id')!.slice('gen-'.length)}`);
    assert.equal(plain.json.status, 'completed');
    assert.equal(plain.json.provider, 'local');
    assert.deepEqual(plain.json.output[0].content, [{ type: 'output_text', text: 'Paris.', annotations: [] }]);
    assert.equal(plain.json.usage.cost, 0.000018);

    emu.enqueue({ text: 'The quick brown fox', chunks: 4, usage: { prompt_tokens: 5, completion_tokens: 4 } });
    const streamed = await postJson(url, { model: 'acme/mock-1', input: 'go', stream: true }, auth);
    assert.equal(streamed.status, 200, streamed.text);
    assert.match(streamed.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(emu.requests[1]!.body.stream, true);
    const events = sseData(streamed.text) as Event[];
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    assert.equal(events[0]!.type, 'response.created');
    assert.equal(events.at(-1)!.type, 'response.completed');
    assert.equal(
      events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join(''),
      'The quick brown fox',
    );
    const final = events.at(-1)!.response;
    assert.equal(final.id, `resp_${streamed.headers.get('x-generation-id')!.slice('gen-'.length)}`);
    assert.equal(final.output[0].content[0].text, 'The quick brown fox');
    assert.equal(final.usage.input_tokens, 5);
    assert.equal(typeof final.usage.cost, 'number');
  });

  test('a replayed conversation: developer messages, assistant turns, function calls and outputs reach the upstream in order', async () => {
    emu.enqueue({ text: 'Oslo is at 3°C.' });
    const res = await post({
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are terse.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', status: 'completed', call_id: 'call_abc', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', id: 'fco_1', call_id: 'call_abc', output: '{"temp_c":3}' },
      ],
      tools: [WEATHER, { type: 'web_search', external_web_access: false }, { type: 'namespace', name: 'multi_agent_v1', tools: [] }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
    });
    assert.equal(res.status, 200, res.text);
    const sent = emu.requests[0]!.body;
    assert.deepEqual(sent.messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c":3}' },
    ]);
    // Hosted and namespace tools are dropped without an error; the function tool goes up in chat's shape.
    assert.deepEqual(sent.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: WEATHER.parameters } },
    ]);
    assert.equal(sent.tool_choice, 'auto');
    assert.equal(res.json.output[0].content[0].text, 'Oslo is at 3°C.');
  });

  test('function calls come back as function_call items with call_id, name and JSON-string arguments', async () => {
    emu.enqueue({
      text: 'Let me look.',
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const res = await post({ input: 'Weather in Oslo and Rome?', tools: [WEATHER] });
    assert.equal(res.status, 200, res.text);
    const out = res.json.output;
    assert.deepEqual(
      out.map((o: { type: string }) => o.type),
      ['message', 'function_call', 'function_call'],
    );
    assert.deepEqual(
      out.slice(1).map((o: Record<string, unknown>) => [o.call_id, o.name, o.arguments, o.status]),
      [
        ['call_1', 'get_weather', '{"city":"Oslo"}', 'completed'],
        ['call_2', 'get_weather', '{"city":"Rome"}', 'completed'],
      ],
    );
    assert.equal(res.json.status, 'completed');
  });

  test('structured output: text.format json_schema reaches the upstream as a response_format', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    emu.enqueue({ text: '{"city":"Paris"}' });
    const res = await post({ input: 'json please', text: { format: { type: 'json_schema', name: 'place', schema, strict: true } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(emu.requests[0]!.body.response_format, { type: 'json_schema', json_schema: { name: 'place', strict: true, schema } });
    assert.deepEqual(res.json.text.format, { type: 'json_schema', name: 'place', schema, strict: true });
    assert.deepEqual(JSON.parse(res.json.output[0].content[0].text), { city: 'Paris' });
  });

  test('a stream: event lines, sequence numbers from 0, item events in order, one response.completed at the end', async () => {
    emu.enqueue({
      reasoning: 'Think first.',
      text: 'The quick brown fox',
      chunks: 4,
      toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      usage: { prompt_tokens: 5, completion_tokens: 9 },
    });
    const res = await post({ input: 'go', stream: true, tools: [WEATHER] });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    for (const block of res.text.trim().split('\n\n')) assert.match(block, /^event: [a-z._]+\ndata: \{/);
    const events = sseData(res.text) as Event[];
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
    assert.equal(types[types.length - 1], 'response.completed');
    assert.equal(types.filter((t) => t === 'response.completed').length, 1);
    const text = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    assert.equal(text, 'The quick brown fox');
    assert.equal(events.find((e) => e.type === 'response.output_text.done')!.text, 'The quick brown fox');
    assert.equal(events.find((e) => e.type === 'response.function_call_arguments.done')!.arguments, '{"city":"Oslo"}');
    assert.equal(events.find((e) => e.type === 'response.reasoning_summary_text.done')!.text, 'Think first.');
    const final = events[events.length - 1]!.response;
    assert.deepEqual(
      final.output.map((o: { type: string }) => o.type),
      ['reasoning', 'message', 'function_call'],
    );
    assert.deepEqual(
      final.output.map((_: unknown, i: number) => i),
      events.filter((e) => e.type === 'response.output_item.done').map((e) => e.output_index),
    );
    assert.equal(final.usage.input_tokens, 5);
    assert.equal(final.usage.output_tokens, 9);
  });

  test('a length finish streams response.incomplete with max_output_tokens', async () => {
    emu.enqueue({ text: 'Once upon a', finishReason: 'length' });
    const res = await post({ input: 'story', stream: true, max_output_tokens: 3 });
    const events = sseData(res.text) as Event[];
    const last = events[events.length - 1]!;
    assert.equal(last.type, 'response.incomplete');
    assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(
      events.some((e) => e.type === 'response.completed'),
      false,
    );
  });

  test('a failure after the stream started: an error event, then response.failed, and nothing else', async () => {
    emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 3 });
    const res = await post({ input: 'x', stream: true });
    assert.equal(res.status, 200);
    const events = sseData(res.text) as Event[];
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
    assert.equal(types.includes('response.completed'), false);
    const error = events[events.length - 2]!;
    assert.equal(error.code, 'provider_error');
    assert.equal(error.error.code, 'provider_error');
    assert.equal(error.error.type, 'provider_error');
    const failed = events[events.length - 1]!.response;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'provider_error');
    assert.equal(failed.output[0].type, 'message');
  });

  test('a failure before anything was streamed is a plain HTTP error with its status', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'status', status: 500 });
    const res = await post({ input: 'x', stream: true });
    assert.equal(res.status, 502);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(res.json.error.type, 'provider_error');
    assert.equal(res.json.error.metadata.provider_name, 'local');
  });

  test('reasoning.exclude keeps the reasoning out of the answer', async () => {
    emu.enqueue({ reasoning: 'secret thoughts', text: 'Answer.' });
    const res = await post({ input: 'q', reasoning: { effort: 'low', exclude: true } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.json.output.map((o: { type: string }) => o.type),
      ['message'],
    );
  });
});
