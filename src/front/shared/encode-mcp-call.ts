import type { ServerToolCall, ServerToolList } from '../../canonical/server-tools.ts';

// OpenAI's MCP output items (responses), which chat's `mcp_calls` extension field repeats.

export interface McpCallItem {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  status: 'in_progress' | 'completed' | 'failed';
}

export interface McpListToolsItem {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: Array<{ name: string; description: string | null; input_schema: Record<string, unknown>; annotations: null }>;
  error: null;
}

export function mcpCallItem(call: ServerToolCall): McpCallItem {
  return {
    type: 'mcp_call',
    id: call.id,
    server_label: call.server,
    name: call.name,
    arguments: call.arguments,
    output: call.output ?? null,
    error: call.error ?? null,
    status: call.status,
  };
}

export function mcpListToolsItem(list: ServerToolList): McpListToolsItem {
  return {
    type: 'mcp_list_tools',
    id: list.id,
    server_label: list.server,
    tools: list.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema, annotations: null })),
    error: null,
  };
}
