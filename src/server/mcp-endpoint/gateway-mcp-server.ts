import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthContext } from '../../auth/authenticate.ts';
import type { McpCallStatus } from '../../store/mcp-store.ts';
import { exposedToolName, toolIndex, type GatewayToolSource } from './gateway-tool-source.ts';

// The MCP server /mcp answers as, made for one request and one key (the endpoint is
// stateless): `tools/list` lists the tools of every MCP server the key may use, named
// `<server>__<tool>`; `tools/call` finds the tool by that name among them again (the
// registry caches the lists) and calls it on its server. Every call is recorded (server,
// tool, duration, status; never the arguments or the result).

/** What a tool call left, for the record. */
export interface ToolCallOutcome {
  server: string | null;
  tool: string;
  status: McpCallStatus;
  durationMs: number;
  error: string | null;
}

/** The longest error text recorded or answered for a failed call. */
const MAX_ERROR_CHARS = 500;

export function gatewayMcpServer(
  source: GatewayToolSource,
  auth: AuthContext,
  record: (outcome: ToolCallOutcome) => Promise<void>,
  version: string,
): Server {
  const server = new Server(
    { name: 'switchyard', version },
    {
      capabilities: { tools: {} },
      instructions: 'Tools of the MCP servers this gateway key may use; each tool is named <server>__<tool>.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const { tools } = await source.listTools(auth, extra.signal);
    const listed: Tool[] = [];
    for (const [name, t] of toolIndex(tools)) listed.push({ ...t.tool, name });
    return { tools: listed };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const { tools } = await source.listTools(auth, extra.signal);
    const target = toolIndex(tools).get(name);
    if (target === undefined) {
      await record({
        server: null,
        tool: name,
        status: 'refused',
        durationMs: elapsed(),
        error: 'not a tool of an MCP server this key may use',
      });
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${name}": it is not a tool of an MCP server this key may use (tools/list names them).`,
      );
    }
    const serverName = target.server;
    const toolName = target.tool.name;
    let result: CallToolResult;
    try {
      result = await source.callTool(auth, serverName, toolName, request.params.arguments ?? {}, extra.signal);
    } catch (err) {
      const message = errorText(err);
      await record({ server: serverName, tool: toolName, status: 'failed', durationMs: elapsed(), error: message });
      // A tool that fails is the model's to read (MCP: a tool error is a result with isError), not a protocol error.
      return { content: [{ type: 'text', text: `${exposedToolName(serverName, toolName)} failed: ${message}` }], isError: true };
    }
    await record({
      server: serverName,
      tool: toolName,
      status: result.isError === true ? 'tool_error' : 'ok',
      durationMs: elapsed(),
      error: null,
    });
    return result;
  });

  return server;
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
