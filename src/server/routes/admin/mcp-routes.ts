import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { McpCallCursor, McpCallFilter, McpCallRow, McpCallStatus } from '../../../store/mcp-store.ts';
import { access } from '../../route-access.ts';
import {
  ACCOUNT_MCP_SERVER_FIELDS,
  accountMcpServerView,
  createAccountMcpServer,
  removeAccountMcpServer,
  type AccountMcpServerBody,
  type AccountMcpServersDeps,
} from '../../mcp-endpoint/account-mcp-servers.ts';
import { findAccount, type FindAccountDeps } from './accounts-routes.ts';
import { decodeCursor, page, pageSize, paramOf, queryOf, requireAdmin, type Query } from './admin-common.ts';
import { bodySchema, PAGE_QUERY, routeSchema } from './route-schema.ts';
import type { Stores } from '../../../store/store-contract.ts';

/** What mcp-routes.ts uses of the services (handed out by build-app.ts). */
export type McpRoutesDeps = AccountMcpServersDeps &
  FindAccountDeps & {
    stores: Pick<Stores, 'mcpCalls' | 'mcpServers'>;
  };

// The operator's view of MCP: any account's own MCP servers (list, add, remove; audited), and
// the record of MCP tool calls (GET /admin/mcp/calls: server, tool, duration, status, key,
// account; never the arguments or the result), newest first.

export const MCP_CALL_STATUSES: readonly McpCallStatus[] = ['ok', 'tool_error', 'failed', 'refused'];
const accountParam = { id: 'The account id.' };

function isCallCursor(v: unknown): v is McpCallCursor {
  return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string');
}

function callView(c: McpCallRow): Record<string, unknown> {
  return {
    id: c.id,
    at: c.at,
    account_id: c.accountId,
    key_hash: c.keyHash,
    server: c.server,
    tool: c.tool,
    via: c.via,
    status: c.status,
    duration_ms: c.durationMs,
    error: c.error,
    generation_id: c.generationId,
  };
}

/** A page of the record of MCP tool calls, by the query's `key`, `server`, `status`, `limit` and `cursor`; `accountId`: only its calls. */
export async function mcpCallsPage(
  deps: { stores: Pick<Stores, 'mcpCalls'> },
  q: Query,
  accountId: string | undefined,
): Promise<{ data: Array<Record<string, unknown>>; next_cursor: string | null }> {
  const limit = pageSize(q);
  const filter: McpCallFilter = {};
  if (accountId !== undefined) filter.accountId = accountId;
  if (q.key !== undefined && q.key !== '') filter.keyHash = q.key;
  if (q.server !== undefined && q.server !== '') filter.server = q.server;
  if (q.status !== undefined && q.status !== '') {
    if (!(MCP_CALL_STATUSES as readonly string[]).includes(q.status))
      throw new GatewayError('invalid_parameter', `"status" must be one of ${MCP_CALL_STATUSES.join(', ')}.`, { param: 'status' });
    filter.status = q.status as McpCallStatus;
  }
  const rows = await deps.stores.mcpCalls.list(filter, decodeCursor(q, isCallCursor), limit + 1);
  const out = page(rows, limit, (r): McpCallCursor => [r.at, r.id]);
  return { data: out.data.map(callView), next_cursor: out.next_cursor };
}

export function registerAdminMcpRoutes(app: FastifyInstance, deps: McpRoutesDeps, prefix: string): void {
  const tags = ['admin: mcp'];
  app.get(
    `${prefix}/admin/accounts/:id/mcp-servers`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: "An account's own MCP servers; header values are never shown",
        tags,
        params: accountParam,
        response: '{data: [mcp_server]}',
        answers: 'AccountMcpServerList',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      return { data: (await deps.stores.mcpServers.list(account.id)).map(accountMcpServerView) };
    },
  );

  app.post(
    `${prefix}/admin/accounts/:id/mcp-servers`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Add an MCP server to an account (a host of mcp.allowed_hosts)',
        tags,
        params: accountParam,
        status: 201,
        response: '{data: mcp_server}',
        answers: 'AccountMcpServerAnswer',
        body: bodySchema({ ...ACCOUNT_MCP_SERVER_FIELDS }, { required: ['name', 'url'] }),
      }),
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      const row = await createAccountMcpServer(deps, auth, account.id, request.body as AccountMcpServerBody);
      reply.code(201);
      return { data: accountMcpServerView(row) };
    },
  );

  app.delete(
    `${prefix}/admin/accounts/:id/mcp-servers/:server`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: "Remove one of an account's MCP servers",
        tags,
        params: { ...accountParam, server: 'The server id (mcps_...).' },
        response: '{deleted: true}',
        answers: 'Deleted',
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      await removeAccountMcpServer(deps, auth, account.id, paramOf(request, 'server'));
      return { deleted: true };
    },
  );

  app.get(
    `${prefix}/admin/mcp/calls`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'MCP tool calls the gateway made (server, tool, duration, status, key, account; never arguments), newest first',
        tags,
        query: {
          account: 'Only this account.',
          key: 'Only this key (its hash).',
          server: 'Only this MCP server.',
          status: `Only this outcome: ${MCP_CALL_STATUSES.join(', ')}.`,
          ...PAGE_QUERY,
        },
        response: '{data: [{id, at, account_id, key_hash, server, tool, via, status, duration_ms, error, generation_id}], next_cursor}',
        answers: 'McpCallPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      return mcpCallsPage(deps, q, q.account !== undefined && q.account !== '' ? (await findAccount(deps, q.account)).id : undefined);
    },
  );
}
