import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { describeResponsesContract, replay, type ScriptedUpstream } from './openai-responses-cases.ts';

// The official `openai` client's Responses API through switchyard to an Anthropic-format
// upstream (scripted emulator, `kind: anthropic`): the same cases as an OpenAI-format
// upstream, plus what only Anthropic has: signed and redacted thinking that must come back
// unchanged on the next turn.

function anthropicConfig(baseUrl: string): string {
  return `sim: false
providers:
  - id: claude
    kind: anthropic
    base_url: ${baseUrl}
    api_key: sk-ant-upstream
models:
  - id: acme/claude-mock
    name: Claude Mock
    context_length: 200000
    capabilities: [text, tool_calling, json_mode, structured_outputs, streaming, reasoning]
    endpoints:
      - provider: claude
        model: claude-mock-1
        max_output_tokens: 8192
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

/** `tool_result` blocks of a request's user messages, as [tool_use_id, text]. */
function anthropicToolResults(body: any): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of body.messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      out.push([b.tool_use_id, typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text).join('')]);
    }
  }
  return out;
}

describeResponsesContract('Anthropic-format upstream', async (): Promise<ScriptedUpstream> => {
  const emu = await startAnthropicEmulator();
  return {
    name: 'anthropic',
    yaml: anthropicConfig(emu.baseUrl),
    model: 'acme/claude-mock',
    enqueue: (a) =>
      emu.enqueue({ text: a.text, toolCalls: a.toolCalls, stopReason: a.truncated ? 'max_tokens' : undefined, chunks: a.chunks }),
    enqueueReset: () => emu.enqueue({ fault: 'reset-mid-stream', afterChunks: 4 }),
    reset: () => emu.reset(),
    request: (n) => emu.requests[n]!.body,
    toolResults: anthropicToolResults,
    schemaSent: (body) => body.output_config?.format?.schema,
    close: () => emu.close(),
  };
});

describe('openai client responses API: Anthropic thinking through switchyard', () => {
  let emu: AnthropicEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'function',
      name: 'get_weather',
      strict: false,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];

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

  test('signed thinking comes out as a reasoning item and goes back to Anthropic as the same thinking block', async () => {
    emu.enqueue({
      thinking: 'The user wants Oslo weather.',
      signature: 'EqQBCkYIARgCKkA-signature',
      toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await client.responses
      .stream({ model: 'acme/claude-mock', input, tools, reasoning: { effort: 'medium' } })
      .finalResponse();
    const reasoning = first.output[0]!;
    assert.equal(reasoning.type, 'reasoning');
    assert.deepEqual(reasoning.type === 'reasoning' && [reasoning.summary[0]!.text, reasoning.encrypted_content], [
      'The user wants Oslo weather.',
      'EqQBCkYIARgCKkA-signature',
    ]);
    assert.ok(emu.requests[0]!.body.thinking, 'reasoning effort turned thinking on upstream');

    emu.enqueue({ text: 'It is 3°C in Oslo.' });
    const second = await client.responses.create({
      model: 'acme/claude-mock',
      tools,
      reasoning: { effort: 'medium' },
      input: [...input, ...replay(first.output), { type: 'function_call_output', call_id: 'toolu_01', output: '{"temp_c":3}' }],
    });
    assert.equal(second.output_text, 'It is 3°C in Oslo.');
    const assistant = emu.requests[1]!.body.messages[1];
    assert.deepEqual(assistant, {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants Oslo weather.', signature: 'EqQBCkYIARgCKkA-signature' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } },
      ],
    });
  });

  test('redacted thinking survives the round trip byte for byte', async () => {
    emu.enqueue({ redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a', text: 'Done.' });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Think hard.' }];
    const first = await client.responses.create({ model: 'acme/claude-mock', input, reasoning: { effort: 'high' } });
    assert.deepEqual(
      first.output.map((o) => o.type),
      ['reasoning', 'message'],
    );

    emu.enqueue({ text: 'Again.' });
    await client.responses.create({
      model: 'acme/claude-mock',
      input: [...input, ...replay(first.output), { role: 'user', content: 'And again.' }],
      reasoning: { effort: 'high' },
    });
    assert.deepEqual(emu.requests[1]!.body.messages[1].content[0], { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' });
  });
});
