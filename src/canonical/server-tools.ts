// Tools the gateway runs itself between model turns (MCP servers' tools, docs/tools.md):
// what a request asks for, and what the answer says was run. The vocabulary only: the
// loop that runs them is server/mcp-loop/, the client that calls them mcp/.

/** A request's choice of one MCP server (`mcp.servers[]`, a responses `mcp` tool, a messages `mcp_servers[]` entry). */
export interface McpServerChoice {
  /** The registered server's name (responses' `server_label`, messages' `name`). */
  name: string;
  /** The URL the client gave (responses' `server_url`, messages' `url`): it must be the registered server's. */
  url?: string;
  /** Only these of its tools (absent: all it exposes to the caller). */
  allowedTools?: string[];
  /** Where the request named it: the answer shows the calls in that dialect's form. */
  form: 'spec' | 'responses-tool' | 'messages';
}

/** A server's tool list as given to the model (responses' `mcp_list_tools` item). */
export interface ServerToolList {
  id: string;
  server: string;
  tools: Array<{ name: string; description: string | null; inputSchema: Record<string, unknown> }>;
}

/** One call of a tool the gateway ran: `in_progress` when it starts, then `completed` or `failed` with its output. */
export interface ServerToolCall {
  id: string;
  server: string;
  /** The tool's own name on its server (not the prefixed name the model saw). */
  name: string;
  /** The arguments as JSON text, as the model wrote them. */
  arguments: string;
  status: 'in_progress' | 'completed' | 'failed';
  /** The tool's result text (untrusted, bounded), once done. */
  output?: string;
  /** Why it failed (the server's error, a timeout, a bound), once failed. */
  error?: string;
}

/** A server tool list or call in an answer, placed before the content block at `before`. */
export type ServerToolEntry =
  { kind: 'list'; before: number; list: ServerToolList } | { kind: 'call'; before: number; call: ServerToolCall };
