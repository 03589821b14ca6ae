import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../../auth/authenticate.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { AccountMcpServerRow } from '../../store/mcp-store.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { AccountServers } from '../../mcp/mcp-registry.ts';
import { privateAddressOf } from '../../net/ssrf-guard.ts';
import { actorOf } from '../routes/admin/admin-common.ts';
import { hostAllowed } from './allowed-hosts.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What account-mcp-servers.ts uses of the services (handed out by build-app.ts). */
export interface AccountMcpServersDeps {
  stores: Pick<Stores, 'mcpServers' | 'transaction'>;
  inForce: Pick<InForce, 'config'>;
  now: () => number;
}

// An account's own MCP servers (docs/mcp-endpoint.md, "Account MCP servers"): added and
// removed through the management API (the account's management key or its session) or the
// admin API (any account), each change audited. A server's URL must name a host of the
// operator's `mcp.allowed_hosts` and (unless `mcp.allow_private_addresses`) resolve to no
// private, loopback or link-local address; its headers (the tokens it needs) are stored and
// sent to it, and never answered back: the views name the headers, not their values.

export const MAX_ACCOUNT_MCP_SERVERS = 20;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE_CHARS = 4096;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers the MCP client itself sets: an account may not send its own. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The body of a create, as the route's schema lets it through (types checked, values not yet). */
export interface AccountMcpServerBody {
  name: string;
  url: string;
  headers?: Record<string, string>;
  tools?: string[];
}

/** The account's own servers as the MCP registry reaches them (mcp/mcp-registry.ts's `AccountServers`). */
export function accountMcpServerSpecs(stores: Stores): AccountServers {
  return async (accountId) =>
    (await stores.mcpServers.list(accountId)).map((s) => ({
      name: s.name,
      url: s.url,
      transport: 'auto',
      headers: s.headers,
      tools: s.tools,
    }));
}

/** What the API answers for a server: its header names, never their values. */
export function accountMcpServerView(s: AccountMcpServerRow): Record<string, unknown> {
  return {
    id: s.id,
    account_id: s.accountId,
    name: s.name,
    url: s.url,
    header_names: Object.keys(s.headers),
    tools: s.tools,
    created_at: s.createdAt,
  };
}

/** Body schema fields for POST (both APIs). */
export const ACCOUNT_MCP_SERVER_FIELDS = {
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 32,
    description: 'What it is called: letters, digits, "_" and "-" (its tools are listed as <name>__<tool>).',
  },
  url: {
    type: 'string',
    minLength: 1,
    maxLength: 2048,
    description: "The server's streamable HTTP (or HTTP+SSE) URL, on a host of the operator's mcp.allowed_hosts.",
  },
  headers: {
    type: 'object',
    maxProperties: MAX_HEADERS,
    additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE_CHARS },
    description: 'Sent to the server with every request (e.g. its Authorization); stored, never answered back.',
  },
  tools: {
    type: 'array',
    minItems: 1,
    maxItems: 256,
    uniqueItems: true,
    items: { type: 'string', maxLength: 128 },
    description: 'Only these of its tools are exposed (absent: all).',
  },
} as const;

/** Adds a server to `accountId` on behalf of `actor` (audited); refuses what the checks above refuse. */
export async function createAccountMcpServer(
  deps: AccountMcpServersDeps,
  actor: AuthContext,
  accountId: string,
  body: AccountMcpServerBody,
): Promise<AccountMcpServerRow> {
  const name = checkName(deps, body.name);
  const url = await checkUrl(deps, body.url);
  const headers = checkHeaders(body.headers ?? {});
  const tools = body.tools === undefined ? null : checkTools(body.tools);
  const row: AccountMcpServerRow = {
    id: `mcps_${randomBytes(12).toString('hex')}`,
    accountId,
    name,
    url: url.href,
    headers,
    tools,
    createdAt: new Date(deps.now()).toISOString(),
  };
  await deps.stores.transaction(async (tx) => {
    const existing = await tx.mcpServers.list(accountId);
    if (existing.some((s) => s.name === name))
      throw new GatewayError('invalid_parameter', `"name": the account already has an MCP server "${name}"; remove it first.`, {
        param: 'name',
      });
    if (existing.length >= MAX_ACCOUNT_MCP_SERVERS)
      throw new GatewayError('forbidden', `An account has at most ${MAX_ACCOUNT_MCP_SERVERS} MCP servers; remove one first.`);
    await tx.mcpServers.create(row);
    await tx.audit.record(
      actorOf(actor),
      'mcp_server.create',
      row.id,
      { account_id: accountId, name, url: row.url, header_names: Object.keys(headers), tools },
      row.createdAt,
    );
  });
  return row;
}

/** Removes the account's server `id` (audited); another account's or an unknown one is a 404. */
export async function removeAccountMcpServer(
  deps: AccountMcpServersDeps,
  actor: AuthContext,
  accountId: string,
  id: string,
): Promise<void> {
  await deps.stores.transaction(async (tx) => {
    const row = await tx.mcpServers.get(id);
    if (row === undefined || row.accountId !== accountId)
      throw new GatewayError('not_found', `No MCP server with id "${id}" in this account.`);
    await tx.mcpServers.remove(id);
    await tx.audit.record(
      actorOf(actor),
      'mcp_server.delete',
      id,
      { account_id: accountId, name: row.name, url: row.url },
      new Date(deps.now()).toISOString(),
    );
  });
}

function checkName(deps: AccountMcpServersDeps, name: string): string {
  if (!MCP_SERVER_NAME.test(name))
    throw new GatewayError('invalid_parameter', '"name": letters, digits, "_" and "-", at most 32 characters.', { param: 'name' });
  if (deps.inForce.config.mcpServers.some((s) => s.name === name)) {
    throw new GatewayError('invalid_parameter', `"name": "${name}" is the name of one of the operator's MCP servers; choose another.`, {
      param: 'name',
    });
  }
  return name;
}

async function checkUrl(deps: AccountMcpServersDeps, raw: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError('invalid_parameter', '"url" must be an absolute http:// or https:// URL.', { param: 'url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GatewayError('invalid_parameter', '"url" must be an http:// or https:// URL.', { param: 'url' });
  if (url.username !== '' || url.password !== '')
    throw new GatewayError('invalid_parameter', '"url" must not carry credentials; put them in "headers".', { param: 'url' });
  const mcp = deps.inForce.config.mcp;
  if (!hostAllowed(mcp.allowedHosts, url.hostname)) {
    throw new GatewayError(
      'invalid_parameter',
      mcp.allowedHosts.length === 0
        ? '"url": this gateway allows no account MCP servers (the operator lists the hosts they may be on in mcp.allowed_hosts).'
        : `"url": ${url.hostname} is not a host the operator allows MCP servers on (mcp.allowed_hosts).`,
      { param: 'url' },
    );
  }
  if (mcp.allowPrivateAddresses) return url;
  let bad: string | null;
  try {
    bad = await privateAddressOf(url);
  } catch {
    throw new GatewayError('invalid_parameter', `"url": the host ${url.hostname} does not resolve.`, { param: 'url' });
  }
  if (bad !== null) {
    throw new GatewayError(
      'invalid_parameter',
      `"url": ${url.hostname} is or resolves to ${bad}, a private, loopback or link-local address; MCP servers there are refused unless the operator sets mcp.allow_private_addresses: true.`,
      { param: 'url' },
    );
  }
  return url;
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw new GatewayError('invalid_parameter', `"headers": "${name.slice(0, 64)}" is not a header name.`, { param: 'headers' });
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw new GatewayError('invalid_parameter', `"headers": ${name} is set by the gateway's MCP client.`, { param: 'headers' });
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
      throw new GatewayError('invalid_parameter', `"headers": the value of ${name} holds a control character.`, { param: 'headers' });
    out[name] = value;
  }
  return out;
}

function checkTools(tools: readonly string[]): string[] {
  for (const t of tools)
    if (!TOOL_NAME.test(t))
      throw new GatewayError('invalid_parameter', `"tools": "${t.slice(0, 128)}" is not a tool name (letters, digits, "_", "." and "-").`, {
        param: 'tools',
      });
  return [...tools];
}
