import type { ServerToolCall } from '../../canonical/server-tools.ts';
import { parseToolInput } from './encode-messages-response.ts';

// Anthropic's MCP connector blocks, for the calls the gateway ran (docs/tools.md).

export interface McpToolUseBlock {
  type: 'mcp_tool_use';
  id: string;
  name: string;
  server_name: string;
  input: unknown;
}

export interface McpToolResultBlock {
  type: 'mcp_tool_result';
  tool_use_id: string;
  is_error: boolean;
  content: Array<{ type: 'text'; text: string }>;
}

export function mcpToolUseBlock(call: ServerToolCall): McpToolUseBlock {
  return { type: 'mcp_tool_use', id: call.id, name: call.name, server_name: call.server, input: parseToolInput(call.arguments) };
}

export function mcpToolResultBlock(call: ServerToolCall): McpToolResultBlock {
  const failed = call.status !== 'completed';
  return {
    type: 'mcp_tool_result',
    tool_use_id: call.id,
    is_error: failed,
    content: [{ type: 'text', text: (failed ? (call.error ?? call.output) : call.output) ?? '' }],
  };
}
