import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import { buildInfo } from '../../config/build-info.ts';
import { resumeIdleTimeout } from '../connection-guards.ts';
import { access, requestAuth } from '../route-access.ts';
import type { ToolCallOutcome } from './gateway-mcp-server.ts';
import type { GatewayToolSource } from './gateway-tool-source.ts';
import { recordToolCall, type RecordToolCallDeps } from './record-tool-call.ts';
import { routeSchema } from '../routes/admin/route-schema.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { InFlight } from '../in-flight.ts';

/** What mcp-endpoint-route.ts uses of the services (handed out by build-app.ts). */
export type McpEndpointRouteDeps = RecordToolCallDeps & {
  inForce: Pick<InForce, 'config'>;
  inFlight: InFlight;
};

// `/mcp`: one MCP server (streamable HTTP, stateless: no session, every POST stands alone)
// that serves the tools of every MCP server the calling API key may use, so an MCP client
// (Claude Code, Codex, …) configures the gateway once instead of each server. The key is
// a gateway API key (Authorization: Bearer), checked from the headers before the body is
// read (route-access.ts). Answers are JSON (no SSE): a tool call is one request, one answer.
// The MCP SDK (~10 MB of heap with its zod schemas) is loaded by the first request to /mcp,
// not at start (docs/operations.md, "Memory and GC").

export const MCP_ENDPOINT_PATH = '/mcp';

const NOTE = 'MCP streamable HTTP (stateless): the tools of every MCP server the key may use';
const tags = ['mcp'];
const POST_SCHEMA = routeSchema({
  summary:
    'MCP streamable HTTP (stateless): JSON-RPC messages (initialize, tools/list, tools/call) for the tools of every MCP server the key may use, named <server>__<tool>',
  tags,
  docsOnly: true,
  response: 'A JSON-RPC answer (docs/mcp-endpoint.md).',
  answers: 'JsonRpcAnswer',
});
const NOT_SERVED_SCHEMA = routeSchema({
  summary: 'Not served: the endpoint is stateless (no stream to GET, no session to DELETE); 405',
  tags,
  docsOnly: true,
  status: 405,
  response: 'A JSON-RPC error.',
  answers: 'JsonRpcAnswer',
});

export function registerMcpEndpoint(app: FastifyInstance, deps: McpEndpointRouteDeps, source: GatewayToolSource): void {
  const version = buildInfo().version;
  app.post(
    MCP_ENDPOINT_PATH,
    { ...access('model-key', { maxBodyBytes: 'server', note: NOTE }), schema: POST_SCHEMA },
    async (request, reply) => {
      const auth = requestAuth(request);
      await serve(request, reply, deps, source, auth, version);
      return reply;
    },
  );
  // A stateless server offers no stream to GET and no session to DELETE (the MCP transport's 405).
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_ENDPOINT_PATH,
      ...access('model-key', { note: NOTE }),
      schema: NOT_SERVED_SCHEMA,
      handler: async (_request, reply) => {
        reply.code(405).header('allow', 'POST');
        return {
          jsonrpc: '2.0',
          error: { code: -32000, message: `${method} is not served: this MCP endpoint is stateless; POST JSON-RPC messages to it.` },
          id: null,
        };
      },
    });
  }
}

async function serve(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: McpEndpointRouteDeps,
  source: GatewayToolSource,
  auth: AuthContext,
  version: string,
): Promise<void> {
  const record = (outcome: ToolCallOutcome): Promise<void> => recordToolCall(deps, auth, 'endpoint', outcome);
  const [{ StreamableHTTPServerTransport }, { gatewayMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./gateway-mcp-server.ts'),
  ]);
  const server = gatewayMcpServer(source, auth, record, version);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  const done = new AbortController();
  const leave = deps.inFlight.enter(done);
  // A graceful stop past its drain timeout cancels what runs: the transport's close aborts the handlers.
  done.signal.addEventListener('abort', () => void transport.close(), { once: true });
  reply.raw.once('close', () => {
    leave();
    void transport.close();
    void server.close();
    resumeIdleTimeout(request, deps.inForce.config.server.idleTimeoutMs);
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch {
    // The transport answers what it can refuse itself; past that (the reply is ours, hijacked) nothing is left to say.
    if (!reply.raw.headersSent)
      reply.raw
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    else reply.raw.destroy();
  }
}
