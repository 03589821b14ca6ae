import type { FastifyInstance } from 'fastify';
import { access, requestAuth } from '../route-access.ts';
import {
  ACCOUNT_MCP_SERVER_FIELDS,
  accountMcpServerView,
  createAccountMcpServer,
  removeAccountMcpServer,
  type AccountMcpServerBody,
  type AccountMcpServersDeps,
} from '../mcp-endpoint/account-mcp-servers.ts';
import { bodySchema, PAGE_QUERY, routeSchema } from './admin/route-schema.ts';
import { MCP_CALL_STATUSES, mcpCallsPage } from './admin/mcp-routes.ts';
import { queryOf } from './admin/admin-common.ts';
import type { Stores } from '../../store/store-contract.ts';

/** What mcp-servers-route.ts uses of the services (handed out by build-app.ts). */
export type McpServersRouteDeps = AccountMcpServersDeps & {
  stores: Pick<Stores, 'mcpCalls' | 'mcpServers'>;
};

// An account's own MCP servers, managed by the account (management key or its dashboard
// session): list, add, remove. Their headers are never answered back (account-mcp-servers.ts).
// And the record of the account's MCP tool calls (GET /mcp-calls), as the operator's view has it.

const tags = ['mcp servers'];
const SCHEMA = {
  list: routeSchema({
    summary: "The account's own MCP servers (management key); header values are never shown",
    tags,
    response: '{data: [mcp_server]}',
    answers: 'AccountMcpServerList',
  }),
  create: routeSchema({
    summary: "Add an MCP server to the account (management key): a host of the operator's mcp.allowed_hosts",
    tags,
    status: 201,
    response: '{data: mcp_server}',
    answers: 'AccountMcpServerAnswer',
    body: bodySchema({ ...ACCOUNT_MCP_SERVER_FIELDS }, { required: ['name', 'url'] }),
  }),
  calls: routeSchema({
    summary: "The account's MCP tool calls (management key): server, tool, duration, status, key; never arguments; newest first",
    tags,
    query: {
      key: 'Only this key (its hash).',
      server: 'Only this MCP server.',
      status: `Only this outcome: ${MCP_CALL_STATUSES.join(', ')}.`,
      ...PAGE_QUERY,
    },
    response: '{data: [{id, at, account_id, key_hash, server, tool, via, status, duration_ms, error, generation_id}], next_cursor}',
    answers: 'McpCallPage',
  }),
  remove: routeSchema({
    summary: "Remove one of the account's MCP servers (management key)",
    tags,
    params: { id: 'The server id (mcps_...).' },
    response: '{deleted: true}',
    answers: 'Deleted',
  }),
};

export function registerMcpServersRoutes(app: FastifyInstance, deps: McpServersRouteDeps, prefixes: readonly string[]): void {
  // Reading the servers and the calls: viewers and up; adding and removing them: admins and owners (docs/governance.md).
  const denied = "An account's MCP servers are managed with its management key.";
  const reads = access('management', { role: 'viewer', denied }).config;
  const managed = access('management', { role: 'admin', denied }).config;
  for (const prefix of prefixes) {
    app.get(`${prefix}/mcp-servers`, { config: reads, schema: SCHEMA.list }, async (request) => {
      const auth = requestAuth(request);
      return { data: (await deps.stores.mcpServers.list(auth.account.id)).map(accountMcpServerView) };
    });

    app.post(`${prefix}/mcp-servers`, { config: managed, schema: SCHEMA.create }, async (request, reply) => {
      const auth = requestAuth(request);
      const row = await createAccountMcpServer(deps, auth, auth.account.id, request.body as AccountMcpServerBody);
      reply.code(201);
      return { data: accountMcpServerView(row) };
    });

    app.get(`${prefix}/mcp-calls`, { config: reads, schema: SCHEMA.calls }, async (request) => {
      const auth = requestAuth(request);
      return mcpCallsPage(deps, queryOf(request), auth.account.id);
    });

    app.delete(`${prefix}/mcp-servers/:id`, { config: managed, schema: SCHEMA.remove }, async (request) => {
      const auth = requestAuth(request);
      await removeAccountMcpServer(deps, auth, auth.account.id, (request.params as { id: string }).id);
      return { deleted: true };
    });
  }
}
