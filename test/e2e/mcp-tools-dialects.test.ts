import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The MCP calls the gateway runs, shown in each dialect's own form (docs/tools.md): the
// responses API's mcp_list_tools and mcp_call items (and their events), the messages API's
// mcp_tool_use and mcp_tool_result blocks (Anthropic's MCP connector), streamed and whole.

const WEATHER_CALL = { id: 'call_w1', name: 'docs__weather', arguments: '{"city":"Oslo"}' };

describe('MCP tools in the responses and messages dialects', () => {
  let mcp: McpTestServer;
  let upstream: OpenAIChatEmulator;
  let gw: TestGateway;

  before(async () => {
    mcp = await startMcpTestServer({
      weather: {
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        run: (a) => ({ text: `sunny in ${String(a.city)}` }),
      },
    });
    upstream = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: emulatorConfig(upstream.baseUrl, `mcp: { allow_private_addresses: true }\nmcp_servers: [{ name: docs, url: "${mcp.url}" }]\n`),
      env: { LOCAL_KEY: 'sk-upstream' },
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
    await mcp.close();
  });
  beforeEach(() => {
    upstream.reset();
    upstream.enqueue({ toolCalls: [WEATHER_CALL] }, { text: 'It is sunny in Oslo.' });
  });

  it('responses: {type: "mcp"} tool → mcp_list_tools, mcp_call and the message, as OpenAI writes them', async () => {
    const res = await postJson(
      `${gw.baseUrl}/responses`,
      {
        model: 'acme/mock-1',
        input: 'Weather in Oslo?',
        tools: [{ type: 'mcp', server_label: 'docs', server_url: mcp.url, require_approval: 'never' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    const output = res.json.output;
    assert.deepEqual(
      output.map((i: any) => i.type),
      ['mcp_list_tools', 'mcp_call', 'message'],
    );
    assert.equal(output[0].server_label, 'docs');
    assert.deepEqual(
      output[0].tools.map((t: any) => t.name),
      ['weather'],
    );
    assert.deepEqual(
      { ...output[1], id: undefined },
      {
        type: 'mcp_call',
        id: undefined,
        server_label: 'docs',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
        output: 'sunny in Oslo',
        error: null,
        status: 'completed',
      },
    );
    assert.equal(output[2].content[0].text, 'It is sunny in Oslo.');
    assert.equal(res.json.status, 'completed');
    assert.equal(res.json.id, `resp_${res.headers.get('x-generation-id')!.slice(4)}`);
  });

  it('responses, streamed through the official client: the mcp_* events, then the text; the final response holds every item', async () => {
    const client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl });
    const stream = await client.responses.create({
      model: 'acme/mock-1',
      input: 'Weather in Oslo?',
      stream: true,
      tools: [{ type: 'mcp', server_label: 'docs', require_approval: 'never' }],
    });
    const types: string[] = [];
    let completed: any = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    const mcpEvents = types.filter((t) => t.includes('mcp'));
    assert.deepEqual(mcpEvents, [
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
    ]);
    assert.ok(types.indexOf('response.mcp_call.completed') < types.indexOf('response.output_text.delta'));
    assert.deepEqual(
      completed.output.map((i: any) => i.type),
      ['mcp_list_tools', 'mcp_call', 'message'],
    );
    assert.equal(completed.output[1].output, 'sunny in Oslo');
    assert.equal(completed.output[2].content[0].text, 'It is sunny in Oslo.');
  });

  it('messages: mcp_servers → mcp_tool_use and mcp_tool_result blocks, then the text', async () => {
    const res = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'acme/mock-1',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        mcp_servers: [{ type: 'url', url: mcp.url, name: 'docs' }],
      },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'mcp-client-2025-04-04' },
    );
    assert.equal(res.status, 200, res.text);
    const content = res.json.content;
    assert.deepEqual(
      content.map((b: any) => b.type),
      ['mcp_tool_use', 'mcp_tool_result', 'text'],
    );
    assert.deepEqual(content[0], {
      type: 'mcp_tool_use',
      id: 'mcp_call_w1',
      name: 'weather',
      server_name: 'docs',
      input: { city: 'Oslo' },
    });
    assert.deepEqual(content[1], {
      type: 'mcp_tool_result',
      tool_use_id: 'mcp_call_w1',
      is_error: false,
      content: [{ type: 'text', text: 'sunny in Oslo' }],
    });
    assert.equal(content[2].text, 'It is sunny in Oslo.');
    assert.equal(res.json.stop_reason, 'end_turn');

    // The answer replayed as history (as Claude clients do) is accepted: its MCP blocks are dropped.
    upstream.reset();
    upstream.enqueue({ text: 'You are welcome.' });
    const next = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'acme/mock-1',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content },
          { role: 'user', content: 'Thanks!' },
        ],
      },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
    );
    assert.equal(next.status, 200, next.text);
    assert.equal(upstream.requests[0]!.body.messages[1].content, 'It is sunny in Oslo.');
  });

  it('messages, streamed: the blocks as Anthropic streams them (the input as one input_json_delta)', async () => {
    const res = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'acme/mock-1',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        mcp_servers: [{ type: 'url', url: mcp.url, name: 'docs', tool_configuration: { allowed_tools: ['weather'] } }],
      },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
    );
    assert.equal(res.status, 200, res.text);
    const events = sseData(res.text) as any[];
    const starts = events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block.type);
    assert.deepEqual(starts, ['mcp_tool_use', 'mcp_tool_result', 'text']);
    const input = events.find((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta');
    assert.equal(input.delta.partial_json, '{"city":"Oslo"}');
    const result = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'mcp_tool_result');
    assert.equal(result.content_block.content[0].text, 'sunny in Oslo');
    assert.equal(events.at(-1).type, 'message_stop');
    assert.equal(events.find((e) => e.type === 'message_delta').delta.stop_reason, 'end_turn');
  });

  it('messages, streamed through the official Anthropic client (beta MCP connector): its final message has the MCP blocks', async () => {
    const client = new Anthropic({ apiKey: gw.key, baseURL: gw.origin });
    const stream = client.beta.messages.stream({
      model: 'acme/mock-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      mcp_servers: [{ type: 'url', url: mcp.url, name: 'docs' }],
      betas: ['mcp-client-2025-04-04'],
    });
    const message = await stream.finalMessage();
    assert.deepEqual(
      message.content.map((b) => b.type),
      ['mcp_tool_use', 'mcp_tool_result', 'text'],
    );
    const use = message.content[0] as unknown as { input: unknown; server_name: string; name: string };
    assert.deepEqual([use.name, use.server_name, use.input], ['weather', 'docs', { city: 'Oslo' }]);
    assert.equal((message.content[2] as { text: string }).text, 'It is sunny in Oslo.');
  });

  it("a URL that is not the named server's, or a server approval the gateway cannot give, is a 400", async () => {
    const wrongUrl = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'acme/mock-1',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
        mcp_servers: [{ type: 'url', url: 'https://elsewhere.example/mcp', name: 'docs' }],
      },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
    );
    assert.equal(wrongUrl.status, 400, wrongUrl.text);
    assert.match(wrongUrl.json.error.message, /not its registered URL/);
    const approval = await postJson(
      `${gw.baseUrl}/responses`,
      {
        model: 'acme/mock-1',
        input: 'x',
        tools: [{ type: 'mcp', server_label: 'docs', require_approval: 'always' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(approval.status, 400, approval.text);
    assert.equal(approval.json.error.param, 'tools[0].require_approval');
    assert.equal(upstream.requests.length, 0);
  });
});
