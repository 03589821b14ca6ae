import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** One tool of the test server: its schema and what it answers (text; `isError` to report a tool failure). */
export interface TestTool {
  description?: string;
  inputSchema?: Record<string, unknown>;
  run: (
    args: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<{ text: string; isError?: boolean }> | { text: string; isError?: boolean };
}

export interface McpTestServer {
  url: string;
  /** Each tools/call received: the tool, its arguments and the request's headers. */
  calls: Array<{ tool: string; args: Record<string, unknown>; headers: IncomingMessage['headers'] }>;
  /** The headers of every HTTP request received. */
  requests: Array<IncomingMessage['headers']>;
  /** How many tools/list were answered. */
  lists: number;
  close(): Promise<void>;
}

/**
 * A real MCP server (the official SDK's `Server` over streamable HTTP, stateless) on
 * loopback, with the tools given. Each HTTP request gets its own server and transport, as
 * the SDK's stateless example does.
 */
export async function startMcpTestServer(tools: Record<string, TestTool>): Promise<McpTestServer> {
  const state: McpTestServer = { url: '', calls: [], requests: [], lists: 0, close: async () => {} };
  const http: HttpServer = createServer((req, res) => {
    state.requests.push(req.headers);
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        const server = mcpServer(tools, state, req.headers);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}

function mcpServer(tools: Record<string, TestTool>, state: McpTestServer, headers: IncomingMessage['headers']): Server {
  const server = new Server({ name: 'switchyard-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    state.lists++;
    return {
      tools: Object.entries(tools).map(([name, t]) => ({
        name,
        description: t.description ?? `the ${name} tool`,
        inputSchema: (t.inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' },
      })),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    state.calls.push({ tool: name, args, headers });
    const tool = tools[name];
    if (tool === undefined) return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
    const out = await tool.run(args, extra.signal);
    return { content: [{ type: 'text', text: out.text }], isError: out.isError === true };
  });
  return server;
}

/** A promise that settles only when the signal aborts (a tool that hangs). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
}
