import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startMcpTestServer, untilAborted, type McpTestServer } from '../support/mcp-test-server.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { generationRecord } from '../support/public-api.ts';

// MCP servers' tools run by the gateway for a model that cannot run them (docs/tools.md):
// a real MCP server (the official SDK's, streamable HTTP on loopback), an OpenAI-format
// upstream emulator scripted to call the tool on turn 1 and answer with its result on turn 2.

const WEATHER_CALL = { id: 'call_w1', name: 'docs__weather', arguments: '{"city":"Oslo"}' };

/** The records of the later turns of the request whose first turn is `parentId`. */
async function turnsOf(gw: TestGateway, parentId: string): Promise<any[]> {
  await gw.flush();
  const ids = await gw.services.stores.generations.ids({ accountId: gw.accountId, limit: 50 });
  const records = await Promise.all(ids.map((id) => generationRecord(gw.origin, gw.key, id)));
  return records.filter((r) => r.parent_id === parentId).reverse();
}

describe('MCP tools the gateway runs', () => {
  let mcp: McpTestServer;
  let upstream: OpenAIChatEmulator;
  let gw: TestGateway;
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${gw.key}` });

  before(async () => {
    mcp = await startMcpTestServer({
      weather: {
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        run: (a) => ({ text: `sunny in ${String(a.city)}` }),
      },
      hang: { run: (_a, signal) => untilAborted(signal) },
      huge: { run: () => ({ text: 'x'.repeat(10 * 1024 * 1024) }) },
    });
    upstream = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: emulatorConfig(
        upstream.baseUrl,
        `mcp: { allow_private_addresses: true, call_timeout_ms: 3000, max_result_bytes: 65536 }
mcp_servers:
  - name: docs
    url: ${mcp.url}
    headers: { Authorization: "Bearer \${DOCS_TOKEN}" }
  - name: private
    url: ${mcp.url}
    accounts: [acct_someone_else]
`,
      ),
      env: { LOCAL_KEY: 'sk-upstream-secret', DOCS_TOKEN: 'mcp-secret' },
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
    await mcp.close();
  });
  beforeEach(() => upstream.reset());

  it('chat: the model calls an MCP tool, the gateway runs it, the final answer uses its result; each turn charged and recorded', async () => {
    upstream.enqueue({ toolCalls: [WEATHER_CALL] }, { text: 'It is sunny in Oslo.' });
    const calls = mcp.calls.length;
    const before = await gw.services.stores.accounts.getAccount(gw.accountId);
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        mcp: { servers: [{ name: 'docs' }] },
      },
      auth(),
    );
    assert.equal(res.status, 200, res.text);
    const message = res.json.choices[0].message;
    assert.equal(message.content, 'It is sunny in Oslo.');
    assert.equal(message.tool_calls, undefined, "the MCP call is not the client's to run");
    assert.deepEqual(message.mcp_calls, [
      {
        type: 'mcp_call',
        id: 'mcp_call_w1',
        server_label: 'docs',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
        output: 'sunny in Oslo',
        error: null,
        status: 'completed',
      },
    ]);
    assert.equal(res.json.choices[0].finish_reason, 'stop');

    // Turn 1 offered the tool; turn 2 carried its call and result.
    assert.equal(upstream.requests.length, 2);
    assert.ok(upstream.requests[0]!.body.tools.some((t: any) => t.function.name === 'docs__weather'));
    const second = upstream.requests[1]!.body.messages;
    assert.equal(second.at(-2).tool_calls[0].function.name, 'docs__weather');
    assert.deepEqual(
      { role: second.at(-1).role, content: second.at(-1).content, id: second.at(-1).tool_call_id },
      { role: 'tool', content: 'sunny in Oslo', id: 'call_w1' },
    );

    // The MCP server got its own credential, never the caller's key nor the provider's.
    assert.equal(mcp.calls.length, calls + 1);
    assert.equal(mcp.calls.at(-1)!.headers.authorization, 'Bearer mcp-secret');
    for (const headers of mcp.requests)
      assert.ok(!JSON.stringify(headers).includes(gw.key) && !JSON.stringify(headers).includes('sk-upstream-secret'));

    // Two turns, each charged: the answer's cost is their sum, and the balance moved by it.
    await gw.flush();
    const parent = await generationRecord(gw.origin, gw.key, res.headers.get('x-generation-id')!);
    assert.equal(res.json.id, parent.id);
    assert.equal(parent.parent_id, null);
    assert.deepEqual(parent.tool_calls, []);
    assert.equal(parent.finish_reason, 'tool_calls');
    const turns = await turnsOf(gw, parent.id);
    assert.equal(turns.length, 1, 'one later turn');
    const child = turns[0]!;
    assert.equal(child.finish_reason, 'stop');
    assert.equal(child.tool_calls.length, 1);
    const call = child.tool_calls[0];
    assert.deepEqual({ server: call.server, tool: call.tool, status: call.status }, { server: 'docs', tool: 'weather', status: 'ok' });
    assert.equal(typeof call.ms, 'number');
    assert.ok(!JSON.stringify(child).includes('Oslo'), 'the record holds no arguments nor results');
    assert.equal(res.json.usage.prompt_tokens, parent.tokens_prompt + child.tokens_prompt);
    const after = await gw.services.stores.accounts.getAccount(gw.accountId);
    const charged = Number(before!.balanceNanos - after!.balanceNanos) / 1e9;
    assert.ok(Math.abs(charged - res.json.usage.cost) < 1e-9, `charged ${charged}, answer says ${res.json.usage.cost}`);
    assert.ok(Math.abs(res.json.usage.cost - (parent.total_cost + child.total_cost)) < 1e-9, "the answer's cost is its turns'");
  });

  it('chat, streamed: text, the MCP call as it starts and ends, then the final text', async () => {
    upstream.enqueue({ text: 'Let me check.', toolCalls: [WEATHER_CALL] }, { text: 'Sunny, it says.' });
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        stream: true,
        messages: [{ role: 'user', content: 'Weather?' }],
        mcp: { servers: [{ name: 'docs', allowed_tools: ['weather'] }] },
      },
      auth(),
    );
    assert.equal(res.status, 200, res.text);
    const chunks = sseData(res.text) as any[];
    assert.equal(chunks.at(-1), '[DONE]');
    const deltas = chunks.filter((c) => c !== '[DONE]' && c.choices.length > 0).map((c) => c.choices[0].delta);
    const text = deltas.map((d) => d.content ?? '').join('');
    assert.equal(text, 'Let me check.Sunny, it says.');
    const mcpEvents = deltas.filter((d) => d.mcp_calls !== undefined).map((d) => d.mcp_calls[0]);
    assert.deepEqual(
      mcpEvents.map((e) => [e.name, e.status, e.output]),
      [
        ['weather', 'in_progress', null],
        ['weather', 'completed', 'sunny in Oslo'],
      ],
    );
    assert.ok(deltas.every((d) => d.tool_calls === undefined));
    // The MCP events come between the two turns' text.
    const order = deltas.filter((d) => d.content || d.mcp_calls).map((d) => (d.mcp_calls ? 'mcp' : 'text'));
    assert.deepEqual(order.slice(order.indexOf('mcp'), order.lastIndexOf('mcp') + 2), ['mcp', 'mcp', 'text']);
    const usage = chunks.at(-2).usage;
    assert.ok(usage.cost > 0);
  });

  it('streamed, a later turn that fails ends the stream with the error in-stream; the turn before stays charged and recorded', async () => {
    upstream.enqueue(
      { toolCalls: [WEATHER_CALL] },
      { fault: 'status', status: 400, body: { error: { message: 'bad turn', type: 'invalid_request_error' } } },
    );
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        stream: true,
        messages: [{ role: 'user', content: 'Weather?' }],
        mcp: { servers: [{ name: 'docs' }] },
      },
      auth(),
    );
    assert.equal(res.status, 200);
    const chunks = sseData(res.text) as any[];
    assert.ok(chunks.some((c) => c.choices?.[0]?.delta?.mcp_calls?.[0]?.status === 'completed'));
    const last = chunks.at(-1);
    assert.equal(last.error.code, 'upstream_rejected_request');
    const parent = await generationRecord(gw.origin, gw.key, res.headers.get('x-generation-id')!);
    assert.equal(parent.status, 'success');
    assert.ok(parent.total_cost > 0);
    const [child] = await turnsOf(gw, parent.id);
    assert.equal(child.status, 'error');
    assert.equal(child.tool_calls[0].tool, 'weather');
  });

  it('a server the account may not use, or that is unknown, is a 400 naming it; nothing is called', async () => {
    for (const name of ['private', 'nope']) {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/mock-1',
          messages: [{ role: 'user', content: 'x' }],
          mcp: { servers: [{ name }] },
        },
        auth(),
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, 'invalid_parameter');
      assert.equal(res.json.error.param, 'mcp.servers[0].name');
      assert.match(res.json.error.message, new RegExp(`"${name}"`));
    }
    assert.equal(upstream.requests.length, 0);
  });

  it('a key limited by allowed_mcp_servers (through the keys API) may name only those servers and tools: another is a 400 naming it; nothing is called', async () => {
    const manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mcp scope manager', management: true }))
      .key;
    const made = await postJson(
      `${gw.origin}/api/v1/keys`,
      { name: 'only docs/weather', allowed_mcp_servers: ['docs/weather'] },
      { authorization: `Bearer ${manager}` },
    );
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.json.data.allowed_mcp_servers, ['docs/weather']);
    const limited = { authorization: `Bearer ${made.json.key}` };
    // Its account has no list: the key's alone decides. A server outside it is refused before any upstream call.
    const refused = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'x' }],
        mcp: { servers: [{ name: 'docs' }] },
      },
      {
        authorization: `Bearer ${(await postJson(`${gw.origin}/api/v1/keys`, { name: 'no mcp', allowed_mcp_servers: [] }, { authorization: `Bearer ${manager}` })).json.key}`,
      },
    );
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.param, 'mcp.servers[0].name');
    assert.match(refused.json.error.message, /"docs" is not one this key may use/);
    assert.equal(upstream.requests.length, 0);
    // The allowed tool is offered, the others of the server are not.
    upstream.enqueue({ toolCalls: [WEATHER_CALL] }, { text: 'Sunny.' });
    const ok = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Weather?' }],
        mcp: { servers: [{ name: 'docs' }] },
      },
      limited,
    );
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      upstream.requests[0]!.body.tools.map((t: any) => t.function.name),
      ['docs__weather'],
    );
    assert.equal(ok.json.choices[0].message.mcp_calls[0].output, 'sunny in Oslo');
    // A bad entry is refused by the keys API, naming the field.
    const bad = await postJson(
      `${gw.origin}/api/v1/keys`,
      { name: 'bad', allowed_mcp_servers: ['no spaces'] },
      { authorization: `Bearer ${manager}` },
    );
    assert.equal(bad.status, 400);
    assert.match(bad.text, /allowed_mcp_servers/);
  });

  it('a tool that hangs and one answering 10 MB are bounded: the model is told, the request ends normally', async () => {
    upstream.enqueue(
      {
        toolCalls: [
          { id: 'call_h', name: 'docs__hang', arguments: '{}' },
          { id: 'call_b', name: 'docs__huge', arguments: '{}' },
        ],
      },
      { text: 'Both tools failed.' },
    );
    const started = Date.now();
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'x' }],
        mcp: { servers: [{ name: 'docs' }] },
      },
      auth(),
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(Date.now() - started < 20_000);
    const calls = res.json.choices[0].message.mcp_calls;
    assert.deepEqual(
      calls.map((c: any) => [c.name, c.status]),
      [
        ['hang', 'failed'],
        ['huge', 'failed'],
      ],
    );
    assert.match(calls[0].error, /did not answer within 3000 ms/);
    assert.match(calls[1].error, /larger than 65536 bytes/);
    const results = upstream.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    assert.equal(results.length, 2);
    assert.ok(results.every((m: any) => m.content.length < 1000));
    assert.equal(res.json.choices[0].message.content, 'Both tools failed.');
  });
});
