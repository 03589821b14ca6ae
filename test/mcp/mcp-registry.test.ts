import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_DEFAULTS, type McpConfig, type McpServerConfig } from '../../src/config/parse-mcp.ts';
import { startMcpTestServer, untilAborted, type McpTestServer } from '../support/mcp-test-server.ts';
import { McpRegistry } from '../../src/mcp/mcp-registry.ts';
import { McpCallError } from '../../src/mcp/mcp-types.ts';

const BIG = 'x'.repeat(10 * 1024 * 1024);

describe('McpRegistry over a real MCP server (official SDK, streamable HTTP, loopback)', () => {
  let mcp: McpTestServer;
  const registries: McpRegistry[] = [];
  const registry = (over: Partial<McpConfig> = {}, server: Partial<McpServerConfig> = {}): { reg: McpRegistry; spec: McpServerConfig } => {
    const spec: McpServerConfig = {
      name: 'docs',
      url: mcp.url,
      transport: 'auto',
      headers: { authorization: 'Bearer mcp-secret' },
      tools: null,
      accounts: null,
      ...server,
    };
    const reg = new McpRegistry([spec], { ...MCP_DEFAULTS, allowPrivateAddresses: true, ...over });
    registries.push(reg);
    return { reg, spec };
  };

  before(async () => {
    mcp = await startMcpTestServer({
      weather: {
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        run: (a) => ({ text: `sunny in ${String(a.city)}` }),
      },
      broken: { run: () => ({ text: 'it broke', isError: true }) },
      hang: { run: (_a, signal) => untilAborted(signal) },
      huge: { run: () => ({ text: BIG }) },
    });
  });
  after(async () => {
    await Promise.all(registries.map((r) => r.close()));
    await mcp.close();
  });

  it("lists the tools, filtered by the server's `tools`, and caches the list for the TTL", async () => {
    const { reg, spec } = registry();
    const tools = await reg.listTools(spec);
    assert.deepEqual(tools.map((t) => t.name).sort(), ['broken', 'hang', 'huge', 'weather']);
    assert.deepEqual(tools.find((t) => t.name === 'weather')!.inputSchema.required, ['city']);
    const lists = mcp.lists;
    await reg.listTools(spec);
    assert.equal(mcp.lists, lists, 'the second list came from the cache');
    const only = await reg.listTools({ ...spec, tools: ['weather'] });
    assert.deepEqual(
      only.map((t) => t.name),
      ['weather'],
    );
  });

  it("calls a tool with the server's own headers only, and reports a tool's failure as a result", async () => {
    const { reg, spec } = registry();
    const result = await reg.callTool(spec, 'weather', { city: 'Oslo' });
    assert.deepEqual(result, { text: 'sunny in Oslo', isError: false });
    const call = mcp.calls.at(-1)!;
    assert.equal(call.headers.authorization, 'Bearer mcp-secret');
    assert.deepEqual(await reg.callTool(spec, 'broken', {}), { text: 'it broke', isError: true });
    await assert.rejects(
      reg.callTool({ ...spec, tools: ['weather'] }, 'broken', {}),
      (e: unknown) => e instanceof McpCallError && e.reason === 'unknown_tool',
    );
  });

  it('bounds a tool that hangs by mcp.call_timeout_ms, and the next call works', async () => {
    const { reg, spec } = registry({ callTimeoutMs: 2000 });
    const started = Date.now();
    await assert.rejects(
      reg.callTool(spec, 'hang', {}),
      (e: unknown) => e instanceof McpCallError && e.reason === 'timeout' && /2000 ms/.test(e.message),
    );
    assert.ok(Date.now() - started < 15_000);
    assert.equal((await reg.callTool(spec, 'weather', { city: 'Rome' })).text, 'sunny in Rome');
  });

  it('bounds an answer of 10 MB by mcp.max_result_bytes', async () => {
    const { reg, spec } = registry({ maxResultBytes: 64 * 1024, callTimeoutMs: 10_000 });
    await assert.rejects(
      reg.callTool(spec, 'huge', {}),
      (e: unknown) => e instanceof McpCallError && e.reason === 'too_large' && /65536 bytes/.test(e.message),
    );
    assert.equal((await reg.callTool(spec, 'weather', { city: 'Lima' })).text, 'sunny in Lima');
  });

  it('refuses a loopback server unless mcp.allow_private_addresses', async () => {
    const { reg, spec } = registry({ allowPrivateAddresses: false });
    await assert.rejects(
      reg.listTools(spec),
      (e: unknown) => e instanceof McpCallError && e.reason === 'private_address' && /mcp\.allow_private_addresses/.test(e.message),
    );
    const named = registry({ allowPrivateAddresses: false }, { url: mcp.url.replace('127.0.0.1', 'localhost') });
    await assert.rejects(named.reg.listTools(named.spec), (e: unknown) => e instanceof McpCallError && e.reason === 'private_address');
  });

  it('scopes operator servers by account', () => {
    const { reg, spec } = registry({}, { accounts: ['acct_a'] });
    assert.equal(reg.mayUse(spec, 'acct_a'), true);
    assert.equal(reg.mayUse(spec, 'acct_b'), false);
    assert.deepEqual(reg.usableBy('acct_b'), []);
    assert.equal(reg.server('docs'), spec);
  });
});
