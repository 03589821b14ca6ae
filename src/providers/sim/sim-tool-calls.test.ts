import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest, Message, ToolCallPart, ToolDefinition } from '../../canonical/request.ts';
import { runSim, simRequest, userSays } from './sim-fixtures.test-util.ts';
import { validateAgainstSchema } from './validate-against-schema.test-util.ts';

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a place',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', minLength: 2 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      when: { type: 'string', format: 'date-time' },
      days: { type: 'integer', minimum: 1, maximum: 14 },
    },
    required: ['location', 'unit'],
    additionalProperties: false,
  },
};
const email: ToolDefinition = {
  name: 'send_email',
  parameters: {
    type: 'object',
    properties: {
      to: { type: 'array', items: { type: 'string', format: 'email' }, minItems: 2, uniqueItems: true },
      subject: { type: 'string', maxLength: 20 },
      priority: { anyOf: [{ $ref: '#/definitions/level' }, { type: 'null' }] },
      meta: {
        type: 'object',
        properties: { sent: { type: 'string', format: 'date' }, retries: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 } },
      },
    },
    required: ['to', 'subject'],
    definitions: { level: { type: 'string', enum: ['low', 'high'] } },
  },
};
const tools = [weather, email];

function toolCalls(content: readonly { type: string }[]): ToolCallPart[] {
  return content.filter((b): b is ToolCallPart => b.type === 'tool-call');
}

async function callsFor(text: string, extra: Partial<CanonicalRequest> = {}): Promise<ToolCallPart[]> {
  return toolCalls((await runSim(simRequest([userSays(text)], { tools, ...extra }))).response.content);
}

test('a named tool is called with arguments that fit its schema', async () => {
  const run = await runSim(simRequest([userSays('Please use get_weather for Lyon')], { tools }));
  const calls = toolCalls(run.response.content);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.name, 'get_weather');
  assert.equal(calls[0]!.id, 'call_sim_1');
  assert.deepEqual(validateAgainstSchema(JSON.parse(calls[0]!.arguments), weather.parameters), []);
  assert.deepEqual(run.response.finish, { unified: 'tool_calls', raw: 'tool_calls' });
  assert.equal(run.text, '');
});

test('arguments stream in a few fragments between start and end', async () => {
  const run = await runSim(simRequest([userSays('send_email now')], { tools }));
  const types = run.parts.map((p) => p.type);
  const start = types.indexOf('tool-call-start');
  const end = types.indexOf('tool-call-end');
  const deltas = types.slice(start + 1, end);
  assert.ok(deltas.length >= 2 && deltas.length <= 4 && deltas.every((t) => t === 'tool-call-delta'));
  const [call] = toolCalls(run.response.content);
  assert.deepEqual(validateAgainstSchema(JSON.parse(call!.arguments), email.parameters), []);
});

test('tools named in the message are all called, in order of mention', async () => {
  const calls = await callsFor('First send_email, then get_weather.');
  assert.deepEqual(
    calls.map((c) => c.name),
    ['send_email', 'get_weather'],
  );
  assert.deepEqual(
    calls.map((c) => c.id),
    ['call_sim_1', 'call_sim_2'],
  );
  for (const call of calls) {
    const tool = tools.find((t) => t.name === call.name)!;
    assert.deepEqual(validateAgainstSchema(JSON.parse(call.arguments), tool.parameters), []);
  }
});

test('parallelToolCalls false calls only the first tool named', async () => {
  const calls = await callsFor('First send_email, then get_weather.', { parallelToolCalls: false });
  assert.deepEqual(
    calls.map((c) => c.name),
    ['send_email'],
  );
});

test('tool names match whole words only, in any case', async () => {
  assert.deepEqual(
    (await callsFor('GET_WEATHER please')).map((c) => c.name),
    ['get_weather'],
  );
  assert.deepEqual(await callsFor('my_get_weather_helper is unrelated'), []);
});

test('auto without a named tool: "tool" or "call" picks the first tool, else text', async () => {
  assert.deepEqual(
    (await callsFor('Can you call something for me?')).map((c) => c.name),
    ['get_weather'],
  );
  assert.deepEqual(
    (await callsFor('Use a tool')).map((c) => c.name),
    ['get_weather'],
  );
  assert.deepEqual(await callsFor('Just chat with me'), []);
});

test('tool choice: none, required and a forced tool', async () => {
  assert.deepEqual(await callsFor('use get_weather', { toolChoice: { type: 'none' } }), []);
  assert.deepEqual(
    (await callsFor('Just chat with me', { toolChoice: { type: 'required' } })).map((c) => c.name),
    ['get_weather'],
  );
  assert.deepEqual(
    (await callsFor('use get_weather', { toolChoice: { type: 'tool', name: 'send_email' } })).map((c) => c.name),
    ['send_email'],
  );
});

test('a tool result is answered in text that reports it', async () => {
  const messages: Message[] = [
    userSays('use get_weather for Lyon'),
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'call_sim_1', name: 'get_weather', arguments: '{"location":"Lyon","unit":"celsius"}' }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_sim_1', content: '{"temperature": 21, "sky": "clear"}' }] },
  ];
  const run = await runSim(simRequest(messages, { tools, toolChoice: { type: 'required' } }));
  assert.equal(toolCalls(run.response.content).length, 0);
  assert.match(run.text, /get_weather returned: "\{"temperature": 21, "sky": "clear"\}"/);
  assert.equal(run.response.finish?.unified, 'stop');
});

test('tool errors are reported as errors', async () => {
  const messages: Message[] = [
    userSays('call it'),
    { role: 'assistant', content: [{ type: 'tool-call', id: 'call_sim_1', name: 'get_weather', arguments: '{}' }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_sim_1', content: 'city not found', isError: true }] },
  ];
  const run = await runSim(simRequest(messages, { tools }));
  assert.match(run.text, /get_weather reported an error: "city not found"/);
});

test('call ids continue after the calls already in the conversation', async () => {
  const messages: Message[] = [
    userSays('use get_weather'),
    { role: 'assistant', content: [{ type: 'tool-call', id: 'call_sim_1', name: 'get_weather', arguments: '{}' }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_sim_1', content: 'sunny' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It is sunny.' }] },
    userSays('now send_email'),
  ];
  const [call] = toolCalls((await runSim(simRequest(messages, { tools }))).response.content);
  assert.equal(call?.id, 'call_sim_2');
});

test('a token limit reached inside the arguments truncates them and finishes with length', async () => {
  const run = await runSim(simRequest([userSays('send_email')], { tools, maxOutputTokens: 10 }));
  const [call] = toolCalls(run.response.content);
  assert.ok(call !== undefined && call.arguments.length > 0);
  assert.throws(() => JSON.parse(call.arguments));
  assert.equal(run.response.finish?.unified, 'length');
  assert.ok(run.response.usage!.output <= 10);
});

test('reasoning before a tool call keeps its signature', async () => {
  const run = await runSim(simRequest([userSays('get_weather')], { tools, reasoning: { effort: 'low' } }));
  assert.deepEqual(
    run.response.content.map((b) => b.type),
    ['reasoning', 'tool-call'],
  );
});
