import type { McpConfig, McpServerConfig } from '../config/parse-mcp.ts';
import { McpClient } from './mcp-client.ts';
import { McpCallError, type McpServerSpec, type McpTool, type McpToolResult } from './mcp-types.ts';

/** An account's own MCP servers (the store's, read per request: every instance of a fleet sees a change at once). */
export type AccountServers = (accountId: string) => Promise<McpServerSpec[]>;

/** Tool lists kept at most (the operator's servers and accounts' own): past it the oldest is forgotten. */
const MAX_CACHED_LISTS = 1000;

interface CachedList {
  at: number;
  tools: Promise<McpTool[]>;
}

/**
 * The MCP servers the gateway runs tools of: the operator's (`mcp_servers:`), by name and
 * by account; and, for any server spec (an account's own too), its tools (the server's list
 * filtered by the spec's `tools`, cached for `mcp.tools_ttl_ms`) and their calls, through
 * one `McpClient`. Results are bounded, untrusted text; failures are `McpCallError`.
 */
export class McpRegistry {
  readonly config: McpConfig;
  private readonly byName: Map<string, McpServerConfig>;
  private readonly client: McpClient;
  private readonly lists = new Map<string, CachedList>();
  private readonly now: () => number;
  private readonly accountServers: AccountServers;

  constructor(
    servers: readonly McpServerConfig[],
    config: McpConfig,
    opts: { client?: McpClient; now?: () => number; clientInfo?: { name: string; version: string }; accountServers?: AccountServers } = {},
  ) {
    this.config = config;
    this.accountServers = opts.accountServers ?? (async () => []);
    this.byName = new Map(servers.map((s) => [s.name, s]));
    this.now = opts.now ?? Date.now;
    this.client =
      opts.client ??
      new McpClient({
        allowPrivateAddresses: config.allowPrivateAddresses,
        callTimeoutMs: config.callTimeoutMs,
        maxResultBytes: config.maxResultBytes,
        ...(opts.clientInfo === undefined ? {} : { clientInfo: opts.clientInfo }),
      });
  }

  /** True when no operator server is configured (the request path then does no MCP work at all). */
  get empty(): boolean {
    return this.byName.size === 0;
  }

  /** The operator's server of that name, whoever may use it. */
  server(name: string): McpServerConfig | undefined {
    return this.byName.get(name);
  }

  /** The operator's servers, in the config's order. */
  servers(): McpServerConfig[] {
    return [...this.byName.values()];
  }

  /** Whether an account may use an operator server (its `accounts`; absent: every account). */
  mayUse(server: McpServerConfig, accountId: string): boolean {
    return server.accounts === null || server.accounts.includes(accountId);
  }

  /** The operator's servers an account may use. */
  usableBy(accountId: string): McpServerConfig[] {
    return this.servers().filter((s) => this.mayUse(s, accountId));
  }

  /**
   * Every server an account may use: the operator's it may use, then its own (added through
   * the management API; an account's server may not take an operator's name).
   */
  async serversFor(accountId: string): Promise<McpServerSpec[]> {
    const own = await this.accountServers(accountId);
    return [...this.usableBy(accountId), ...own.filter((s) => !this.byName.has(s.name))];
  }

  /** The server of that name an account may use (the operator's or its own), or undefined. */
  async resolve(accountId: string, name: string): Promise<McpServerSpec | undefined> {
    const operator = this.byName.get(name);
    if (operator !== undefined) return this.mayUse(operator, accountId) ? operator : undefined;
    return (await this.accountServers(accountId)).find((s) => s.name === name);
  }

  /** The server's tools it exposes (its list, filtered by `tools`), from the cache while fresh. */
  async listTools(server: McpServerSpec, signal?: AbortSignal): Promise<McpTool[]> {
    const all = await this.cachedList(server, signal);
    const exposed = server.tools;
    return exposed === null ? all : all.filter((t) => exposed.includes(t.name));
  }

  /** Calls a tool the server exposes; a tool outside its `tools` is refused without a call. */
  async callTool(server: McpServerSpec, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolResult> {
    if (server.tools !== null && !server.tools.includes(tool))
      throw new McpCallError(server.name, 'unknown_tool', `the MCP server "${server.name}" exposes no tool "${tool}"`);
    return this.client.callTool(server, tool, args, signal);
  }

  /** Forgets the cached tool lists (all, or one server's). */
  forget(server?: McpServerSpec): void {
    if (server === undefined) this.lists.clear();
    else this.lists.delete(listKey(server));
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private cachedList(server: McpServerSpec, signal?: AbortSignal): Promise<McpTool[]> {
    const key = listKey(server);
    const now = this.now();
    const cached = this.lists.get(key);
    if (cached !== undefined && now - cached.at < this.config.toolsTtlMs) return cached.tools;
    // One list in flight per server, shared by the requests that ask meanwhile; not the caller's signal (others wait on it).
    const tools = this.client.listTools(server);
    if (this.config.toolsTtlMs > 0) {
      this.lists.delete(key);
      this.lists.set(key, { at: now, tools });
      if (this.lists.size > MAX_CACHED_LISTS) this.lists.delete(this.lists.keys().next().value!);
      // A failure is not remembered.
      tools.catch(() => {
        if (this.lists.get(key)?.tools === tools) this.lists.delete(key);
      });
    }
    return signal === undefined ? tools : abortable(tools, signal);
  }
}

function listKey(server: McpServerSpec): string {
  return JSON.stringify([server.url, server.transport, server.headers]);
}

/** The promise, or the signal's reason when it aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
