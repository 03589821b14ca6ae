import type { McpServerConfig } from '../config/parse-mcp.ts';

/**
 * What the client needs to reach one MCP server: the operator's (`mcp_servers:`) or, through
 * the management API, an account's own. `tools`: the tools it exposes (null: all it lists).
 */
export type McpServerSpec = Pick<McpServerConfig, 'name' | 'url' | 'transport' | 'headers' | 'tools'>;

/** A tool as an MCP server lists it (its description and schema are the server's: untrusted text). */
export interface McpTool {
  name: string;
  description: string | null;
  /** The JSON Schema of its arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /** MCP's hints (`readOnlyHint`, `destructiveHint`, ...), as the server sent them. */
  annotations?: Record<string, unknown>;
}

/** A tool's result, bounded: its text (text items joined; other items named), untrusted. */
export interface McpToolResult {
  text: string;
  /** The server said the tool failed (`isError`), or the gateway's call to it failed. */
  isError: boolean;
}

/** Why a call to an MCP server failed (McpCallError.reason). */
export type McpFailure = 'timeout' | 'too_large' | 'private_address' | 'unreachable' | 'protocol' | 'unknown_tool';

/** A call to an MCP server that failed: the message is safe to show (no header, no secret). */
export class McpCallError extends Error {
  readonly reason: McpFailure;
  readonly server: string;
  constructor(server: string, reason: McpFailure, message: string) {
    super(message);
    this.server = server;
    this.reason = reason;
  }
}
