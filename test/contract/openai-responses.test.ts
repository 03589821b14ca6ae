import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startOpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { describeResponsesContract, replay, type ScriptedUpstream } from './openai-responses-cases.ts';

// The official `openai` client's Responses API through switchyard to an OpenAI-format
// upstream (scripted emulator) and to the built-in simulator.

describeResponsesContract('OpenAI-format upstream', async (): Promise<ScriptedUpstream> => {
  const emu = await startOpenAIChatEmulator();
  return {
    name: 'openai',
    yaml: emulatorConfig(emu.baseUrl),
    model: 'acme/mock-1',
    enqueue: (a) =>
      emu.enqueue({ text: a.text, toolCalls: a.toolCalls, finishReason: a.truncated ? 'length' : undefined, chunks: a.chunks }),
    enqueueReset: () => emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 2 }),
    reset: () => emu.reset(),
    request: (n) => emu.requests[n]!.body,
    toolResults: (body) => body.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content]),
    schemaSent: (body) => body.response_format?.json_schema?.schema,
    close: () => emu.close(),
  };
});

describe('openai client responses API against switchyard (the simulator)', () => {
  let gw: TestGateway;
  let client: OpenAI;
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'function',
      name: 'get_weather',
      strict: true,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  ];

  before(async () => {
    gw = await startTestGateway({ yaml: SIM_ONLY });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(() => gw.close());

  test('a plain answer', async () => {
    const r = await client.responses.create({ model: 'switchyard/sim-fast', input: 'Say hello.' });
    assert.match(r.output_text, /You said: "Say hello\."/);
    assert.equal(r.status, 'completed');
  });

  test('a tool round trip with reasoning, streamed: the signed reasoning and the call go back as input', async () => {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Please call get_weather for Oslo.' }];
    const first = await client.responses
      .stream({ model: 'switchyard/sim-reasoner', input, tools, reasoning: { effort: 'low' } })
      .finalResponse();
    const reasoning = first.output.find((o) => o.type === 'reasoning');
    const call = first.output.find((o) => o.type === 'function_call');
    assert.ok(reasoning !== undefined && reasoning.summary[0]!.text.length > 0);
    assert.ok(call !== undefined && call.type === 'function_call');
    assert.ok(
      typeof reasoning.encrypted_content === 'string' && reasoning.encrypted_content.length > 0,
      'the signature rides in encrypted_content',
    );
    assert.equal(call.name, 'get_weather');
    // A strict tool: the client parses the arguments itself.
    assert.equal(typeof (call.parsed_arguments as { city: unknown }).city, 'string');

    const second = await client.responses.create({
      model: 'switchyard/sim-reasoner',
      tools,
      reasoning: { effort: 'low' },
      input: [...input, ...replay(first.output), { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 degrees' }],
    });
    assert.match(second.output_text, /The tool get_weather returned: "Sunny, 21 degrees"/);
  });

  test('structured output fits the schema', async () => {
    const r = await client.responses.parse({
      model: 'switchyard/sim-fast',
      input: 'Give me a place.',
      text: {
        format: {
          type: 'json_schema',
          name: 'place',
          strict: true,
          schema: {
            type: 'object',
            properties: { city: { type: 'string' }, rank: { type: 'integer' } },
            required: ['city', 'rank'],
            additionalProperties: false,
          },
        },
      },
    });
    const parsed = r.output_parsed as { city: unknown; rank: unknown };
    assert.equal(typeof parsed.city, 'string');
    assert.ok(Number.isInteger(parsed.rank));
  });

  test('a provider failure in the middle of a stream throws from the iterator', async () => {
    const stream = await client.responses.create({
      model: 'switchyard/sim-fast',
      input: 'Tell me more [sim:error-midstream]',
      stream: true,
    });
    const seen: string[] = [];
    await assert.rejects(
      async () => {
        for await (const event of stream) seen.push(event.type);
      },
      (err: unknown) => err instanceof OpenAI.APIError && /Simulated provider error/.test(err.message),
    );
    assert.ok(seen.includes('response.output_text.delta'), 'part of the answer arrived first');
  });
});
