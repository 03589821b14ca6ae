import { buildInfo } from '../../config/build-info.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { McpClient } from '../../mcp/mcp-client.ts';
import type { AccountServers } from '../../mcp/mcp-registry.ts';
import type { Stores } from '../../store/store-contract.ts';
import { accountMcpServerSpecs } from '../mcp-endpoint/account-mcp-servers.ts';

/** The MCP side that outlives reloads: the client's connections, and where accounts' own servers are read. */
export interface McpGroup {
  mcpClient: McpClient;
  mcpAccountServers: AccountServers;
}

/** Read at start: the SSRF setting and the bounds of every exchange with an MCP server (a change takes a restart). */
export function wireMcp(config: GatewayConfig, stores: Stores): McpGroup {
  return {
    mcpClient: new McpClient({
      allowPrivateAddresses: config.mcp.allowPrivateAddresses,
      callTimeoutMs: config.mcp.callTimeoutMs,
      maxResultBytes: config.mcp.maxResultBytes,
      clientInfo: { name: 'switchyard', version: buildInfo().version },
    }),
    mcpAccountServers: accountMcpServerSpecs(stores),
  };
}
