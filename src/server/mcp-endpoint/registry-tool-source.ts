import { mcpScopeOf } from '../../mcp/mcp-scope.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpRegistry } from '../../mcp/mcp-registry.ts';
import type { McpTool } from '../../mcp/mcp-types.ts';
import type { GatewayToolSource, SourceTool } from './gateway-tool-source.ts';

// The /mcp endpoint's tools from the MCP registry of the configuration in force: the
// operator's servers the account may use and the account's own (McpRegistry.serversFor),
// each server's list as the registry caches and filters it; a call goes through the
// registry's client (SSRF guard, time and byte bounds) and comes back as its bounded text.

export function registryToolSource(registry: () => McpRegistry): GatewayToolSource {
  return {
    async listTools(auth, signal) {
      const mcp = registry();
      // The servers and tools the key and its account may have run (allowed_mcp_servers).
      const scope = mcpScopeOf(auth);
      const servers = (await mcp.serversFor(auth.account.id)).filter((s) => scope === null || scope.allowsServer(s.name));
      const lists = await Promise.allSettled(servers.map((s) => mcp.listTools(s, signal)));
      const tools: SourceTool[] = [];
      const failed: Array<{ server: string; error: string }> = [];
      lists.forEach((list, i) => {
        const server = servers[i]!.name;
        if (list.status === 'fulfilled') {
          for (const t of list.value) if (scope === null || scope.allowsTool(server, t.name)) tools.push({ server, tool: sdkTool(t) });
        } else failed.push({ server, error: list.reason instanceof Error ? list.reason.message : String(list.reason) });
      });
      return { tools, failed };
    },
    async callTool(auth, server, tool, args, signal) {
      const mcp = registry();
      const spec = await mcp.resolve(auth.account.id, server);
      const scope = mcpScopeOf(auth);
      if (spec === undefined || (scope !== null && !scope.allowsTool(spec.name, tool)))
        throw new Error(`the MCP server "${server}" is not one this key may use`);
      const result = await mcp.callTool(spec, tool, args, signal);
      return { content: [{ type: 'text', text: result.text }], isError: result.isError };
    },
  };
}

function sdkTool(t: McpTool): Tool {
  return {
    name: t.name,
    ...(t.description === null ? {} : { description: t.description }),
    inputSchema: t.inputSchema as Tool['inputSchema'],
    ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
  };
}
