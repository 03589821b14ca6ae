import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import { decodeMessagesMcpServers, decodeResponsesMcpTool, decodeSpecMcp } from './decode-mcp-servers.ts';

const refused = (fn: () => unknown, param: string): void => {
  assert.throws(fn, (e: unknown) => e instanceof GatewayError && e.status === 400 && e.param === param);
};

describe('the MCP servers a request names', () => {
  it("the spec's mcp.servers: names and allowed_tools; bad shapes are 400s naming the field", () => {
    assert.deepEqual(decodeSpecMcp({ mcp: { servers: [{ name: 'a', allowed_tools: ['t'] }, { name: 'b' }] } }), [
      { name: 'a', form: 'spec', allowedTools: ['t'] },
      { name: 'b', form: 'spec' },
    ]);
    assert.equal(decodeSpecMcp({}), undefined);
    assert.equal(decodeSpecMcp({ mcp: { servers: [] } }), undefined);
    refused(() => decodeSpecMcp({ mcp: 'docs' }), 'mcp');
    refused(() => decodeSpecMcp({ mcp: {} }), 'mcp.servers');
    refused(() => decodeSpecMcp({ mcp: { servers: [{}] } }), 'mcp.servers[0].name');
    refused(() => decodeSpecMcp({ mcp: { servers: [{ name: 'a', allowed_tools: 'x' }] } }), 'mcp.servers[0].allowed_tools');
    refused(() => decodeSpecMcp({ mcp: { servers: [{ name: 'a' }, { name: 'a' }] } }), 'mcp.servers');
    refused(() => decodeSpecMcp({ mcp: { servers: Array.from({ length: 17 }, (_, i) => ({ name: `s${i}` })) } }), 'mcp.servers');
  });

  it('a responses mcp tool: label, URL, both allowed_tools forms; approvals and credentials refused', () => {
    assert.deepEqual(
      decodeResponsesMcpTool(
        { type: 'mcp', server_label: 'a', server_url: 'https://x/mcp', allowed_tools: ['t'], require_approval: 'never' },
        0,
      ),
      { name: 'a', form: 'responses-tool', url: 'https://x/mcp', allowedTools: ['t'] },
    );
    assert.deepEqual(decodeResponsesMcpTool({ type: 'mcp', server_label: 'a', allowed_tools: { tool_names: ['u'] } }, 2), {
      name: 'a',
      form: 'responses-tool',
      allowedTools: ['u'],
    });
    refused(() => decodeResponsesMcpTool({ type: 'mcp' }, 1), 'tools[1].server_label');
    refused(() => decodeResponsesMcpTool({ type: 'mcp', server_label: 'a', require_approval: 'always' }, 0), 'tools[0].require_approval');
    refused(() => decodeResponsesMcpTool({ type: 'mcp', server_label: 'a', headers: { authorization: 'x' } }, 0), 'tools[0].headers');
    refused(
      () => decodeResponsesMcpTool({ type: 'mcp', server_label: 'a', allowed_tools: { read_only: true } }, 0),
      'tools[0].allowed_tools.read_only',
    );
  });

  it('messages mcp_servers: name, url, tool_configuration; a disabled server left out; tokens refused', () => {
    assert.deepEqual(
      decodeMessagesMcpServers({
        mcp_servers: [
          { type: 'url', url: 'https://x/mcp', name: 'a', tool_configuration: { allowed_tools: ['t'] } },
          { type: 'url', url: 'https://y/mcp', name: 'b', tool_configuration: { enabled: false } },
        ],
      }),
      [{ name: 'a', form: 'messages', url: 'https://x/mcp', allowedTools: ['t'] }],
    );
    refused(
      () => decodeMessagesMcpServers({ mcp_servers: [{ type: 'url', url: 'https://x', name: 'a', authorization_token: 't' }] }),
      'mcp_servers[0].authorization_token',
    );
    refused(() => decodeMessagesMcpServers({ mcp_servers: [{ type: 'stdio', name: 'a' }] }), 'mcp_servers[0].type');
    refused(() => decodeMessagesMcpServers({ mcp_servers: {} }), 'mcp_servers');
  });
});
