import { ConfigError } from './config-error.ts';
import {
  at,
  checkKeys,
  optBoolean,
  optEnum,
  optInt,
  optString,
  optStringList,
  optStringMap,
  readList,
  readMapping,
  readString,
} from './read-fields.ts';

/** How the gateway reaches an MCP server: MCP's streamable HTTP, the older HTTP+SSE, or the first that answers (`auto`). */
export type McpTransportKind = 'auto' | 'streamable_http' | 'sse';
export const MCP_TRANSPORTS: readonly McpTransportKind[] = ['auto', 'streamable_http', 'sse'];

/** One MCP server the operator lists (`mcp_servers:` item, docs/tools.md). */
export interface McpServerConfig {
  /** What requests name it by (`mcp: {servers: [{name}]}`): letters, digits, `_` and `-`, at most 32. */
  name: string;
  /** An http(s) URL: the server's streamable HTTP endpoint, or its SSE endpoint. */
  url: string;
  transport: McpTransportKind;
  /** Sent with every request to the server (credentials by `${ENV}` reference); never the caller's. */
  headers: Record<string, string>;
  /** The tools it exposes (absent: every tool the server lists). */
  tools: string[] | null;
  /** The accounts that may use it (absent: every account). */
  accounts: string[] | null;
}

/** `mcp:` — the bounds of the tools the gateway runs for MCP servers. */
export interface McpConfig {
  /** Reach MCP servers on private, loopback and link-local addresses too (off: SSRF protection). */
  allowPrivateAddresses: boolean;
  /**
   * The hosts accounts may add their own MCP servers on (management API): host names,
   * `*.example.com` (its subdomains), IP addresses, or `*` (any). Empty: accounts add none.
   */
  allowedHosts: string[];
  /** One call to a server (connect, list or call) must answer within this. */
  callTimeoutMs: number;
  /** The most bytes of one answer of a server read (a tool's result, a tool list); past it the call fails. */
  maxResultBytes: number;
  /** The most model turns of one request that runs MCP tools. */
  maxToolTurns: number;
  /** The whole loop of model turns and tool calls must end within this. */
  totalTimeoutMs: number;
  /** How long a server's tool list is reused before it is listed again. */
  toolsTtlMs: number;
}

export const MCP_DEFAULTS: McpConfig = {
  allowPrivateAddresses: false,
  allowedHosts: [],
  callTimeoutMs: 30_000,
  maxResultBytes: 1_048_576,
  maxToolTurns: 8,
  totalTimeoutMs: 300_000,
  toolsTtlMs: 60_000,
};

export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

export function parseMcp(value: unknown, path: string): McpConfig {
  if (value === undefined || value === null) return MCP_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(
    fields,
    [
      'allow_private_addresses',
      'allowed_hosts',
      'call_timeout_ms',
      'max_result_bytes',
      'max_tool_turns',
      'total_timeout_ms',
      'tools_ttl_ms',
    ],
    path,
  );
  const d = MCP_DEFAULTS;
  return {
    allowPrivateAddresses: optBoolean(fields, 'allow_private_addresses', path) ?? d.allowPrivateAddresses,
    allowedHosts: parseAllowedHosts(optStringList(fields, 'allowed_hosts', path), at(path, 'allowed_hosts')) ?? d.allowedHosts,
    callTimeoutMs: optInt(fields, 'call_timeout_ms', path, 100, 600_000) ?? d.callTimeoutMs,
    maxResultBytes: optInt(fields, 'max_result_bytes', path, 1024, 64 * 1_048_576) ?? d.maxResultBytes,
    maxToolTurns: optInt(fields, 'max_tool_turns', path, 1, 64) ?? d.maxToolTurns,
    totalTimeoutMs: optInt(fields, 'total_timeout_ms', path, 1000, 3_600_000) ?? d.totalTimeoutMs,
    toolsTtlMs: optInt(fields, 'tools_ttl_ms', path, 0, 86_400_000) ?? d.toolsTtlMs,
  };
}

export function parseMcpServers(value: unknown, path: string): McpServerConfig[] {
  if (value === undefined || value === null) return [];
  const seen = new Set<string>();
  return readList(value, path).map((item, i) => {
    const p = at(path, i);
    const server = parseServer(item, p);
    if (seen.has(server.name)) throw new ConfigError(at(p, 'name'), `"${server.name}" is listed twice`);
    seen.add(server.name);
    return server;
  });
}

function parseServer(item: unknown, path: string): McpServerConfig {
  const fields = readMapping(item, path);
  checkKeys(fields, ['name', 'url', 'transport', 'headers', 'tools', 'accounts'], path);
  const name = readString(fields.name, at(path, 'name'));
  if (!MCP_SERVER_NAME.test(name)) throw new ConfigError(at(path, 'name'), 'expected letters, digits, "_" or "-", at most 32 characters');
  const url = optString(fields, 'url', path);
  if (url === undefined) throw new ConfigError(at(path, 'url'), "required: the MCP server's http(s) URL");
  checkUrl(url, at(path, 'url'));
  const tools = optStringList(fields, 'tools', path) ?? null;
  const accounts = optStringList(fields, 'accounts', path) ?? null;
  return {
    name,
    url,
    transport: optEnum(fields, 'transport', MCP_TRANSPORTS, path) ?? 'auto',
    headers: optStringMap(fields, 'headers', path) ?? {},
    tools,
    accounts,
  };
}

function checkUrl(url: string, path: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(path, 'expected an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(path, `expected an http(s) URL, got ${parsed.protocol}`);
}

/** A host name, `*.` and a host name, an IP address (IPv6 with or without brackets), or `*`. */
const ALLOWED_HOST =
  /^(?:\*|(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[?[0-9A-Fa-f:.]+\]?)$/;

function parseAllowedHosts(hosts: string[] | undefined, path: string): string[] | undefined {
  if (hosts === undefined) return undefined;
  return hosts.map((h, i) => {
    if (!ALLOWED_HOST.test(h))
      throw new ConfigError(at(path, i), `expected a host name, "*.example.com", an IP address or "*"; got "${h}"`);
    return h.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  });
}
