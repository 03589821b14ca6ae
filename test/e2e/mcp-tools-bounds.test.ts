import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { freePort } from '../support/free-port.ts';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The bounds of the MCP loop (docs/tools.md): turns, total time, servers that cannot be
// listed, private addresses; and client tools called beside MCP tools.

const CALL = (id: string) => ({ id, name: 'docs__weather', arguments: '{"city":"Rome"}' });

describe("the MCP loop's bounds", () => {
  let mcp: McpTestServer;
  let upstream: OpenAIChatEmulator;
  let gw: TestGateway;
  let guarded: TestGateway;
  let tight: TestGateway;
  const chat = (g: TestGateway, body: Record<string, unknown>) =>
    postJson(
      `${g.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Weather?' }],
        mcp: { servers: [{ name: 'docs' }] },
        ...body,
      },
      { authorization: `Bearer ${g.key}` },
    );

  before(async () => {
    mcp = await startMcpTestServer({ weather: { run: (a) => ({ text: `sunny in ${String(a.city)}` }) } });
    upstream = await startOpenAIChatEmulator();
    const closed = await freePort();
    gw = await startTestGateway({
      yaml: emulatorConfig(
        upstream.baseUrl,
        `mcp: { allow_private_addresses: true, max_tool_turns: 2 }
mcp_servers:
  - { name: docs, url: "${mcp.url}" }
  - { name: down, url: "http://127.0.0.1:${closed}/mcp" }
`,
      ),
      env: { LOCAL_KEY: 'k' },
    });
    tight = await startTestGateway({
      yaml: emulatorConfig(
        upstream.baseUrl,
        `mcp: { allow_private_addresses: true, total_timeout_ms: 1000 }\nmcp_servers: [{ name: docs, url: "${mcp.url}" }]\n`,
      ),
      env: { LOCAL_KEY: 'k' },
    });
    // The defaults: private and loopback servers refused.
    guarded = await startTestGateway({
      yaml: emulatorConfig(upstream.baseUrl, `mcp_servers: [{ name: docs, url: "${mcp.url}" }]\n`),
      env: { LOCAL_KEY: 'k' },
    });
  });
  after(async () => {
    await gw.close();
    await guarded.close();
    await tight.close();
    await upstream.close();
    await mcp.close();
  });
  beforeEach(() => upstream.reset());

  it('max_tool_turns: the last turn may call no tool, and an answer that still does ends there', async () => {
    upstream.enqueue({ toolCalls: [CALL('c1')] }, { toolCalls: [CALL('c2')] });
    const res = await chat(gw, {});
    assert.equal(res.status, 200, res.text);
    assert.equal(upstream.requests.length, 2);
    assert.equal(upstream.requests[0]!.body.tool_choice, undefined);
    assert.equal(upstream.requests[1]!.body.tool_choice, 'none');
    const choice = res.json.choices[0];
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(choice.native_finish_reason, 'max_tool_turns');
    assert.equal(choice.message.mcp_calls.length, 1, "the second turn's call was not run");
  });

  it('mcp.total_timeout_ms ends the loop with 408 timeout', async () => {
    upstream.enqueue({ toolCalls: [CALL('c1')] }, { fault: 'slow-first-byte', delayMs: 30_000, then: { text: 'late' } });
    const started = Date.now();
    const res = await chat(tight, {});
    assert.equal(res.status, 408, res.text);
    assert.equal(res.json.error.code, 'timeout');
    assert.ok(Date.now() - started < 20_000, "cut at the loop's bound, not the upstream's answer");
  });

  it("the client's own tool called beside an MCP tool: both in the same answer, the loop ends", async () => {
    upstream.enqueue({ toolCalls: [CALL('c1'), { id: 'c_own', name: 'lookup', arguments: '{}' }] });
    const res = await chat(gw, {
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(upstream.requests.length, 1);
    const message = res.json.choices[0].message;
    assert.deepEqual(
      message.tool_calls.map((c: any) => c.function.name),
      ['lookup'],
    );
    assert.deepEqual(
      message.mcp_calls.map((c: any) => [c.name, c.output]),
      [['weather', 'sunny in Rome']],
    );
    assert.equal(res.json.choices[0].finish_reason, 'tool_calls');
    // Both kinds were offered to the model.
    assert.deepEqual(upstream.requests[0]!.body.tools.map((t: any) => t.function.name).sort(), ['docs__weather', 'lookup']);
  });

  it('a server that cannot list its tools is a 502 mcp_server_unavailable naming it; no model call', async () => {
    const res = await chat(gw, { mcp: { servers: [{ name: 'down' }] } });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error.code, 'mcp_server_unavailable');
    assert.match(res.json.error.message, /"down"/);
    assert.equal(upstream.requests.length, 0);
  });

  it("a reload swaps the servers in (their tools listed anew); one that changes the MCP client's bounds is refused", async () => {
    const config = gw.services.inForce.config;
    const renamed = { ...config, mcpServers: config.mcpServers.map((s) => (s.name === 'docs' ? { ...s, name: 'docs2' } : s)) };
    assert.equal(gw.services.inForce.reload(() => renamed).ok, true);
    try {
      upstream.enqueue({ text: 'fine' });
      assert.equal((await chat(gw, {})).status, 400, 'the old name is gone');
      const res = await chat(gw, { mcp: { servers: [{ name: 'docs2' }] } });
      assert.equal(res.status, 200, res.text);
      assert.ok(upstream.requests[0]!.body.tools.some((t: any) => t.function.name === 'docs2__weather'));
      const refused = gw.services.inForce.reload(() => ({ ...renamed, mcp: { ...renamed.mcp, callTimeoutMs: 1234 } }));
      assert.equal(refused.ok, false);
      assert.match((refused as { error: string }).error, /mcp\.call_timeout_ms changed \(30000 → 1234\); it takes a restart to apply/);
    } finally {
      assert.equal(gw.services.inForce.reload(() => config).ok, true);
    }
  });

  it('by default a server on a loopback address is refused (mcp.allow_private_addresses), and never called', async () => {
    const calls = mcp.requests.length;
    const res = await chat(guarded, {});
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error.code, 'mcp_server_unavailable');
    assert.match(res.json.error.message, /private or loopback address \(mcp\.allow_private_addresses is off\)/);
    assert.equal(mcp.requests.length, calls);
    assert.equal(upstream.requests.length, 0);
  });
});
