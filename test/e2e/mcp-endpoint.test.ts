import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startMcpTestServer, untilAborted, type McpTestServer } from '../support/mcp-test-server.ts';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The /mcp endpoint (docs/mcp-endpoint.md) through the official MCP client, against real MCP
// servers (the official SDK's, streamable HTTP on loopback) behind the gateway.

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function connect(gw: TestGateway, key: string): Promise<Client> {
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

function text(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');
}

describe('/mcp: one MCP endpoint for every MCP server a gateway key may use', () => {
  let docs: McpTestServer;
  let vault: McpTestServer;
  let own: McpTestServer;
  let gw: TestGateway;
  let admin: string;
  let manager: string;
  const clients: Client[] = [];
  const client = async (key: string): Promise<Client> => {
    const c = await connect(gw, key);
    clients.push(c);
    return c;
  };

  before(async () => {
    docs = await startMcpTestServer({
      search: {
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        run: (a) => ({ text: `found: ${String(a.q)}` }),
      },
      fails: { run: () => ({ text: 'tool said no', isError: true }) },
      hangs: { run: (_a, signal) => untilAborted(signal) },
    });
    vault = await startMcpTestServer({ open: { run: () => ({ text: 'the vault is open' }) } });
    own = await startMcpTestServer({ lookup: { run: (a) => ({ text: `own lookup ${String(a.id)}` }) } });
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}mcp: { allow_private_addresses: true, allowed_hosts: ["127.0.0.1"], call_timeout_ms: 3000 }
mcp_servers:
  - { name: docs, url: "${docs.url}", headers: { Authorization: "Bearer operator-docs-token" } }
  - { name: vault, url: "${vault.url}", accounts: [acct_somebody_else] }
`,
    });
    admin = (await createAdminKey(gw)).key;
    manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'manager', management: true })).key;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gw.close();
    await Promise.all([docs.close(), vault.close(), own.close()]);
  });

  it('refuses a request without a key or with a bad one (401), and a management key (403)', async () => {
    for (const headers of [{}, { authorization: 'Bearer sk-sy-v1-not-a-key' }]) {
      const res = await fetch(`${gw.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(INIT),
      });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'authentication_required');
    }
    const res = await fetch(`${gw.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${manager}` },
      body: JSON.stringify(INIT),
    });
    assert.equal(res.status, 403);
    await assert.rejects(connect(gw, 'sk-sy-v1-not-a-key'), /401|authentication/i, 'the official client is refused too');
  });

  it("lists the tools of the servers the key's account may use, named <server>__<tool>, and calls one on its server", async () => {
    const c = await client(gw.key);
    const { tools } = await c.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ['docs__fails', 'docs__hangs', 'docs__search'],
      'not vault: the account may not use it',
    );
    assert.deepEqual(tools.find((t) => t.name === 'docs__search')!.inputSchema.required, ['q']);

    const result = await c.callTool({ name: 'docs__search', arguments: { q: 'switchyard' } });
    assert.equal(text(result), 'found: switchyard');
    assert.notEqual(result.isError, true);
    const upstream = docs.calls.at(-1)!;
    assert.equal(upstream.tool, 'search');
    assert.equal(
      upstream.headers.authorization,
      'Bearer operator-docs-token',
      "the server gets the operator's header, never the gateway key",
    );
    assert.ok(!JSON.stringify(docs.requests).includes(gw.key), 'the gateway key never reaches an MCP server');

    const failed = await c.callTool({ name: 'docs__fails', arguments: {} });
    assert.equal(failed.isError, true);
    assert.equal(text(failed), 'tool said no');
  });

  it('a tool that hangs ends at mcp.call_timeout_ms as a tool error the client reads, recorded as failed', async () => {
    const c = await client(gw.key);
    const result = await c.callTool({ name: 'docs__hangs', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(text(result), /^docs__hangs failed: the MCP server "docs" did not answer within 3000 ms \(mcp\.call_timeout_ms\)/);
    const rows = await call('GET', `${gw.baseUrl}/admin/mcp/calls?status=failed`, admin);
    assert.equal(rows.json.data[0].tool, 'hangs');
    assert.match(rows.json.data[0].error, /within 3000 ms/);
    assert.ok(rows.json.data[0].duration_ms >= 2900);
  });

  it('refuses a tool of a server the account may not use, without calling it', async () => {
    const c = await client(gw.key);
    await assert.rejects(c.callTool({ name: 'vault__open', arguments: {} }), /Unknown tool "vault__open"/);
    assert.equal(vault.calls.length, 0);
  });

  it('records every call (server, tool, duration, status, key, account; not the arguments) in GET /admin/mcp/calls', async () => {
    const c = await client(gw.key);
    await c.callTool({ name: 'docs__search', arguments: { q: 'needle-7f3a' } });
    const res = await call('GET', `${gw.baseUrl}/admin/mcp/calls?server=docs&limit=200`, admin);
    assert.equal(res.status, 200);
    const row = res.json.data.find((r: { tool: string; status: string }) => r.tool === 'search' && r.status === 'ok');
    assert.ok(row !== undefined, JSON.stringify(res.json));
    assert.equal(row.account_id, gw.accountId);
    assert.equal(row.key_hash, gw.keyHash);
    assert.equal(row.via, 'endpoint');
    assert.equal(typeof row.duration_ms, 'number');
    assert.ok(!JSON.stringify(res.json).includes('needle-7f3a'), 'arguments are not recorded');
    assert.ok(res.json.data.some((r: { tool: string; status: string }) => r.tool === 'fails' && r.status === 'tool_error'));

    const refused = await call('GET', `${gw.baseUrl}/admin/mcp/calls?status=refused`, admin);
    assert.deepEqual(
      refused.json.data.map((r: { server: string | null; tool: string }) => [r.server, r.tool]),
      [[null, 'vault__open']],
    );
    assert.equal((await call('GET', `${gw.baseUrl}/admin/mcp/calls?status=nope`, admin)).status, 400);
    assert.equal((await call('GET', `${gw.baseUrl}/admin/mcp/calls`, gw.key)).status, 403);
    // The account sees its own calls with its management key.
    const own = await call('GET', `${gw.baseUrl}/mcp-calls?server=docs&status=ok`, manager);
    assert.equal(own.status, 200);
    assert.ok(
      own.json.data.length > 0 &&
        own.json.data.every((r: { account_id: string; server: string }) => r.account_id === gw.accountId && r.server === 'docs'),
    );
    assert.equal((await call('GET', `${gw.baseUrl}/mcp-calls`, gw.key)).status, 403, 'not with an API key');
  });

  it("a key limited by allowed_mcp_servers sees and calls only those servers' tools", async () => {
    const made = await call('POST', `${gw.origin}/api/v1/keys`, manager, {
      name: 'only docs/search',
      allowed_mcp_servers: ['docs/search'],
    });
    assert.equal(made.status, 201);
    const c = await client(made.json.key as string);
    assert.deepEqual(
      (await c.listTools()).tools.map((t) => t.name),
      ['docs__search'],
    );
    const before = docs.calls.length;
    await assert.rejects(c.callTool({ name: 'docs__fails', arguments: {} }), /Unknown tool "docs__fails"/);
    assert.equal(docs.calls.length, before, 'nothing called');
  });

  it("an account's own MCP server: added with its management key, its header never answered back, served by /mcp to that account only, removed", async () => {
    const secret = 'Bearer acct-secret-91c2';
    const created = await call('POST', `${gw.baseUrl}/mcp-servers`, manager, {
      name: 'mine',
      url: own.url,
      headers: { Authorization: secret },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.deepEqual(
      { ...created.json.data, id: undefined, created_at: undefined },
      {
        id: undefined,
        account_id: gw.accountId,
        name: 'mine',
        url: own.url,
        header_names: ['Authorization'],
        tools: null,
        created_at: undefined,
      },
    );
    const listed = await call('GET', `${gw.baseUrl}/mcp-servers`, manager);
    assert.deepEqual(
      listed.json.data.map((s: { name: string }) => s.name),
      ['mine'],
    );
    const audit = await call('GET', `${gw.baseUrl}/admin/audit?action=mcp_server.create`, admin);
    assert.equal(audit.json.data[0].target, created.json.data.id);
    for (const answer of [created, listed, audit])
      assert.ok(!JSON.stringify(answer.json).includes('acct-secret-91c2'), 'the header value is never answered');

    const c = await client(gw.key);
    assert.ok((await c.listTools()).tools.some((t) => t.name === 'mine__lookup'));
    assert.equal(text(await c.callTool({ name: 'mine__lookup', arguments: { id: 42 } })), 'own lookup 42');
    assert.equal(own.calls.at(-1)!.headers.authorization, secret, "the account's header is sent to its server");

    // Another account sees none of it.
    const other = await gw.services.accountService.createAccount({ name: 'other', type: 'user', tier: 'tier2', creditsUsd: '1' });
    const otherKey = (await gw.services.accountService.createKey({ accountId: other.id, name: 'k' })).key;
    const otherManager = (await gw.services.accountService.createKey({ accountId: other.id, name: 'm', management: true })).key;
    assert.ok(!(await (await client(otherKey)).listTools()).tools.some((t) => t.name.startsWith('mine__')));
    assert.deepEqual((await call('GET', `${gw.baseUrl}/mcp-servers`, otherManager)).json.data, []);
    assert.deepEqual(
      (await call('GET', `${gw.baseUrl}/mcp-calls`, otherManager)).json.data,
      [],
      "another account's calls are not its to see",
    );
    assert.equal((await call('DELETE', `${gw.baseUrl}/mcp-servers/${created.json.data.id}`, otherManager)).status, 404);

    assert.equal(
      (await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'mine', url: own.url })).status,
      400,
      'a name the account already has',
    );
    const clash = await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'docs', url: own.url });
    assert.equal(clash.status, 400);
    assert.match(clash.json.error.message, /operator's MCP servers/);
    assert.equal(
      (await call('POST', `${gw.baseUrl}/mcp-servers`, gw.key, { name: 'x', url: own.url })).status,
      403,
      'an API key cannot manage them',
    );

    const removed = await call('DELETE', `${gw.baseUrl}/mcp-servers/${created.json.data.id}`, manager);
    assert.deepEqual(removed.json, { deleted: true });
    assert.ok(!(await c.listTools()).tools.some((t) => t.name === 'mine__lookup'));
    assert.equal(
      (await call('GET', `${gw.baseUrl}/admin/audit?action=mcp_server.delete`, admin)).json.data[0].target,
      created.json.data.id,
    );
  });

  it("the admin API adds, lists and removes any account's servers", async () => {
    const other = await gw.services.accountService.createAccount({ name: 'by admin', type: 'user', tier: 'tier2', creditsUsd: '1' });
    const created = await call('POST', `${gw.baseUrl}/admin/accounts/${other.id}/mcp-servers`, admin, {
      name: 'theirs',
      url: own.url,
      headers: { 'X-Token': 'admin-set-secret' },
      tools: ['lookup'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.deepEqual(created.json.data.tools, ['lookup']);
    const listed = await call('GET', `${gw.baseUrl}/admin/accounts/${other.id}/mcp-servers`, admin);
    assert.deepEqual(
      listed.json.data.map((s: { name: string; header_names: string[] }) => [s.name, s.header_names]),
      [['theirs', ['X-Token']]],
    );
    assert.ok(!JSON.stringify(listed.json).includes('admin-set-secret'));
    const key = (await gw.services.accountService.createKey({ accountId: other.id, name: 'k' })).key;
    assert.deepEqual((await (await client(key)).listTools()).tools.map((t) => t.name).sort(), [
      'docs__fails',
      'docs__hangs',
      'docs__search',
      'theirs__lookup',
    ]);
    assert.equal((await call('DELETE', `${gw.baseUrl}/admin/accounts/${other.id}/mcp-servers/${created.json.data.id}`, admin)).status, 200);
    assert.deepEqual((await call('GET', `${gw.baseUrl}/admin/accounts/${other.id}/mcp-servers`, admin)).json.data, []);
    assert.equal((await call('GET', `${gw.baseUrl}/admin/accounts/acct_nobody/mcp-servers`, admin)).status, 404);
  });
});

describe("account MCP servers: the operator's allowlist of hosts and the SSRF guard", () => {
  let gw: TestGateway;
  let none: TestGateway;
  let manager: string;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}mcp: { allowed_hosts: ["127.0.0.1", "localhost", "*.tools.example"] }\n` });
    none = await startTestGateway();
    manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'manager', management: true })).key;
  });
  after(async () => {
    await gw.close();
    await none.close();
  });

  it('refuses a private or loopback URL unless mcp.allow_private_addresses, a host outside mcp.allowed_hosts, and any host when none is allowed', async () => {
    for (const url of ['http://127.0.0.1:9/mcp', 'http://localhost:9/mcp']) {
      const res = await call('POST', `${gw.baseUrl}/mcp-servers`, manager, {
        name: 'local',
        url,
        headers: { Authorization: 'Bearer s3cret' },
      });
      assert.equal(res.status, 400, url);
      assert.equal(res.json.error.code, 'invalid_parameter');
      assert.match(res.json.error.message, /private, loopback or link-local.*mcp\.allow_private_addresses/);
    }
    const outside = await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'far', url: 'https://mcp.elsewhere.example/mcp' });
    assert.equal(outside.status, 400);
    assert.match(outside.json.error.message, /mcp\.elsewhere\.example is not a host the operator allows.*mcp\.allowed_hosts/);
    assert.equal(
      (await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'creds', url: 'https://u:p@a.tools.example/mcp' })).status,
      400,
    );
    assert.equal(
      (
        await call('POST', `${gw.baseUrl}/mcp-servers`, manager, {
          name: 'bad',
          url: 'https://a.tools.example/mcp',
          headers: { Host: 'x' },
        })
      ).status,
      400,
    );
    assert.equal(
      (await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'a b', url: 'https://a.tools.example/mcp' })).status,
      400,
    );
    assert.equal(
      (await call('POST', `${gw.baseUrl}/mcp-servers`, manager, { name: 'x', url: 'https://a.tools.example/mcp', extra: 1 })).status,
      400,
    );
    assert.deepEqual((await call('GET', `${gw.baseUrl}/mcp-servers`, manager)).json.data, [], 'nothing was stored');

    const noneManager = (await none.services.accountService.createKey({ accountId: none.accountId, name: 'm', management: true })).key;
    const refused = await call('POST', `${none.baseUrl}/mcp-servers`, noneManager, { name: 'any', url: 'https://mcp.example.com/mcp' });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /allows no account MCP servers/);
  });
});
