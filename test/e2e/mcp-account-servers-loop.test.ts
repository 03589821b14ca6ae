import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An account's own MCP server joins the registry for that account only: a chat request of
// the account may name it (the gateway runs its tool between model turns), another
// account's may not; the loop's calls are recorded beside /mcp's (GET /admin/mcp/calls).

describe("an account's own MCP server in a model request's tool loop", () => {
  let own: McpTestServer;
  let upstream: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    own = await startMcpTestServer({ lookup: { run: (a) => ({ text: `customer ${String(a.id)} is gold` }) } });
    upstream = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: emulatorConfig(upstream.baseUrl, 'mcp: { allow_private_addresses: true, allowed_hosts: ["127.0.0.1"] }\n'),
      env: { LOCAL_KEY: 'sk-upstream-secret' },
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
    await own.close();
  });

  it('is named by a chat request of its account, its tool run with its own header, the call recorded with the turn; refused for another account', async () => {
    const manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'manager', management: true })).key;
    const created = await call('POST', `${gw.baseUrl}/mcp-servers`, manager, {
      name: 'crm',
      url: own.url,
      headers: { Authorization: 'Bearer crm-token-3b' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));

    upstream.enqueue({ toolCalls: [{ id: 'call_c1', name: 'crm__lookup', arguments: '{"id":"77"}' }] }, { text: 'Customer 77 is gold.' });
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Tier of customer 77?' }],
        mcp: { servers: [{ name: 'crm' }] },
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.choices[0].message.content, 'Customer 77 is gold.');
    assert.equal(upstream.requests[1]!.body.messages.at(-1).content, 'customer 77 is gold');
    assert.equal(own.calls.at(-1)!.headers.authorization, 'Bearer crm-token-3b');

    const admin = (await createAdminKey(gw)).key;
    const rows = (await call('GET', `${gw.baseUrl}/admin/mcp/calls?server=crm`, admin)).json.data;
    assert.deepEqual(
      rows.map((r: any) => [r.tool, r.via, r.status, r.key_hash]),
      [['lookup', 'generation', 'ok', gw.keyHash]],
    );
    assert.equal(rows[0].generation_id, res.json.id, "the turn that called it: the request's first generation");

    const other = await gw.services.accountService.createAccount({ name: 'other', type: 'user', tier: 'tier2', creditsUsd: '1' });
    const otherKey = (await gw.services.accountService.createKey({ accountId: other.id, name: 'k' })).key;
    const refused = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'hi' }],
        mcp: { servers: [{ name: 'crm' }] },
      },
      { authorization: `Bearer ${otherKey}` },
    );
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /Unknown MCP server "crm"/);
  });
});
