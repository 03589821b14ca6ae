// The MCP SDK's client classes, loaded by the first exchange with an MCP server rather than
// at start: the SDK and its zod schemas are ~10 MB of heap that a gateway with no MCP server
// in use never needs (docs/operations.md, "Memory and GC"). Loaded once; a failed load is
// tried again by the next exchange.

export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
}

let loading: Promise<McpSdk> | null = null;

export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(
    ([client, sse, http]) => ({
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
    }),
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}
