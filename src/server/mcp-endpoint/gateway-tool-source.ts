import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuthContext } from '../../auth/authenticate.ts';

// What the /mcp endpoint needs of the MCP registry: the tools of the servers a key may use,
// and a call of one of them. The endpoint names each tool after its server
// (`<server>__<tool>`) so that tools of different servers never clash in one list.

/** One tool of one server, as the upstream server lists it. */
export interface SourceTool {
  server: string;
  tool: Tool;
}

export interface GatewayToolSource {
  /**
   * The tools of every MCP server `auth`'s key and account may use (the operator's and the
   * account's own), only those the server's entry exposes. A server that cannot be listed
   * now is left out and named in `failed`.
   */
  listTools(auth: AuthContext, signal: AbortSignal): Promise<{ tools: SourceTool[]; failed: Array<{ server: string; error: string }> }>;
  /** Calls `tool` on `server` (one `listTools` gave for this key) with `args`; bounded in time and size by the registry. */
  callTool(auth: AuthContext, server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/** Between the server's name and the tool's in the names /mcp lists. */
export const TOOL_NAME_SEPARATOR = '__';

/** The name /mcp lists a server's tool under. */
export function exposedToolName(server: string, tool: string): string {
  return `${server}${TOOL_NAME_SEPARATOR}${tool}`;
}

/** Each exposed name → its server and tool; the first listed keeps a name two would share. */
export function toolIndex(tools: readonly SourceTool[]): Map<string, SourceTool> {
  const index = new Map<string, SourceTool>();
  for (const t of tools) {
    const name = exposedToolName(t.server, t.tool.name);
    if (!index.has(name)) index.set(name, t);
  }
  return index;
}
