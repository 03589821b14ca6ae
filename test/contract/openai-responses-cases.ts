import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The contract suite for the official `openai` client's Responses API pointed at
// switchyard: what a user's code sees through `client.responses` is what is tested. Every
// scripted upstream (OpenAI-format, Anthropic-format) runs the same cases; each says how
// to script an answer in its own wire format and how to read what it received.

/** An answer, in terms every upstream emulator can play. */
export interface ScriptedAnswer {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** The upstream stopped at its token limit. */
  truncated?: boolean;
  /** Streamed in this many pieces. */
  chunks?: number;
}

export interface ScriptedUpstream {
  name: string;
  /** The gateway config serving `model` from this upstream. */
  yaml: string;
  model: string;
  enqueue(answer: ScriptedAnswer): void;
  /** The next streamed answer breaks off after a few events. */
  enqueueReset(): void;
  reset(): void;
  /** The body of the n-th request the upstream received. */
  request(n: number): any;
  /** The tool results in a request, as [call id, text] pairs, in the upstream's own shape. */
  toolResults(body: any): Array<[string, string]>;
  /** The JSON Schema a request asked the upstream to follow, if any. */
  schemaSent(body: any): unknown;
  close(): Promise<void>;
}

const WEATHER: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather in a city',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/**
 * A response's output items, to replay as input. What every Responses user does; the SDK's
 * types disagree in a corner (a computer call's `failed` status), hence the cast.
 */
export function replay(output: readonly unknown[]): OpenAI.Responses.ResponseInputItem[] {
  return output as OpenAI.Responses.ResponseInputItem[];
}

const PLACE_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, country: { type: 'string' } },
  required: ['city', 'country'],
  additionalProperties: false,
};

export function defineResponsesContractSuite(start: () => Promise<ScriptedUpstream>): void {
  let upstream: ScriptedUpstream;
  let gw: TestGateway;
  let client: OpenAI;

  // `describe` needs the name before the upstream starts; the suites are named by the caller.
  before(async () => {
    upstream = await start();
    gw = await startTestGateway({ yaml: upstream.yaml });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });
  beforeEach(() => upstream.reset());

  test('responses.create: output_text, status, id, model and usage', async () => {
    upstream.enqueue({ text: 'Paris.' });
    const r = await client.responses.create({ model: upstream.model, input: 'Capital of France?', instructions: 'Be brief.' });
    assert.equal(r.output_text, 'Paris.');
    assert.equal(r.status, 'completed');
    assert.match(r.id, /^resp_/);
    assert.equal(r.model, upstream.model);
    assert.ok(r.usage!.input_tokens > 0);
    assert.equal(r.usage!.total_tokens, r.usage!.input_tokens + r.usage!.output_tokens);
  });

  test('stream: true: the iterator yields the deltas and ends with response.completed', async () => {
    upstream.enqueue({ text: 'The quick brown fox', chunks: 4 });
    const stream = await client.responses.create({ model: upstream.model, input: 'go', stream: true });
    let text = '';
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    assert.equal(text, 'The quick brown fox');
    assert.equal(types[0], 'response.created');
    assert.equal(types[types.length - 1], 'response.completed');
    assert.equal(completed!.status, 'completed');
    // `output_text` is the SDK's own convenience, not on the wire: the raw event holds the items.
    const message = completed!.output.find((o) => o.type === 'message');
    assert.deepEqual(message?.type === 'message' && message.content.map((c) => c.type === 'output_text' && c.text), [
      'The quick brown fox',
    ]);
  });

  test('responses.stream: events and finalResponse()', async () => {
    upstream.enqueue({ text: 'Hello there, friend.', chunks: 3 });
    const stream = client.responses.stream({ model: upstream.model, input: 'greet me' });
    let deltas = 0;
    stream.on('response.output_text.delta', () => deltas++);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'Hello there, friend.');
    assert.ok(deltas >= 2, `several deltas, got ${deltas}`);
  });

  test('a function-call round trip: function_call items out, function_call and function_call_output replayed', async () => {
    upstream.enqueue({ toolCalls: [{ id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await client.responses.create({ model: upstream.model, input, tools: [WEATHER] });
    const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    assert.equal(call.call_id, 'call_oslo');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
    assert.equal(first.output_text, '');

    upstream.enqueue({ text: 'It is 3°C in Oslo.' });
    const second = await client.responses.create({
      model: upstream.model,
      tools: [WEATHER],
      input: [...input, ...replay(first.output), { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":3}' }],
    });
    assert.equal(second.output_text, 'It is 3°C in Oslo.');
    assert.deepEqual(upstream.toolResults(upstream.request(1)), [['call_oslo', '{"temp_c":3}']]);
  });

  test('a streamed function call, accumulated by responses.stream', async () => {
    upstream.enqueue({
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const final = await client.responses.stream({ model: upstream.model, input: 'Rome and Oslo?', tools: [WEATHER] }).finalResponse();
    const calls = final.output
      .filter((o) => o.type === 'function_call')
      .map((o) => (o.type === 'function_call' ? [o.call_id, o.arguments] : []));
    assert.deepEqual(calls, [
      ['call_a', '{"city":"Rome"}'],
      ['call_b', '{"city":"Oslo"}'],
    ]);
  });

  test('structured output: text.format json_schema, parsed by responses.parse', async () => {
    upstream.enqueue({ text: '{"city":"Paris","country":"France"}' });
    const r = await client.responses.parse({
      model: upstream.model,
      input: 'Where is the Louvre?',
      text: { format: { type: 'json_schema', name: 'place', strict: true, schema: PLACE_SCHEMA } },
    });
    assert.deepEqual(r.output_parsed, { city: 'Paris', country: 'France' });
    assert.deepEqual(upstream.schemaSent(upstream.request(0)), PLACE_SCHEMA);
  });

  test('a truncated answer is incomplete with max_output_tokens', async () => {
    upstream.enqueue({ text: 'Once upon a', truncated: true });
    const r = await client.responses.create({ model: upstream.model, input: 'A story', max_output_tokens: 16 });
    assert.equal(r.status, 'incomplete');
    assert.equal(r.incomplete_details?.reason, 'max_output_tokens');
    assert.equal(r.output_text, 'Once upon a');
  });

  test("errors are the client's typed errors; a broken stream throws from the iterator", async () => {
    await assert.rejects(
      client.responses.create({ model: upstream.model, input: 'x', temperature: 5 }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && err.code === 'invalid_parameter' && err.param === 'temperature',
    );
    await assert.rejects(
      client.responses.create({ model: upstream.model, input: 'x', previous_response_id: 'resp_1' }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && err.param === 'previous_response_id' && /stateless/.test(err.message),
    );
    upstream.enqueueReset();
    const stream = await client.responses.create({ model: upstream.model, input: 'x', stream: true });
    await assert.rejects(async () => {
      for await (const _ of stream) {
        // drain
      }
    }, OpenAI.APIError);
  });
}

/** Runs the suite under a describe named after the upstream. */
export function describeResponsesContract(name: string, start: () => Promise<ScriptedUpstream>): void {
  describe(`openai client responses API against switchyard (${name})`, () => defineResponsesContractSuite(start));
}
