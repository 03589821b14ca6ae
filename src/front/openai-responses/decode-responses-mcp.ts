import type { McpServerChoice } from '../../canonical/server-tools.ts';
import { decodeResponsesMcpTool, decodeSpecMcp, MAX_MCP_SERVERS } from '../shared/decode-mcp-servers.ts';
import { invalidValue, isObject, type JsonObject } from '../shared/read-fields.ts';

/** The MCP servers of a responses request: the spec's `mcp.servers` and OpenAI's `{type: 'mcp'}` tools, one name once. */
export function decodeResponsesMcp(body: JsonObject): McpServerChoice[] | undefined {
  const out = decodeSpecMcp(body) ?? [];
  const tools = body.tools;
  if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, i: number) => {
      if (!isObject(tool) || tool.type !== 'mcp') return;
      const choice = decodeResponsesMcpTool(tool, i);
      if (out.some((c) => c.name === choice.name))
        throw invalidValue(`tools[${i}].server_label`, `names the server "${choice.name}" twice`);
      out.push(choice);
    });
  }
  if (out.length > MAX_MCP_SERVERS) throw invalidValue('tools', `at most ${MAX_MCP_SERVERS} MCP servers`);
  return out.length === 0 ? undefined : out;
}
