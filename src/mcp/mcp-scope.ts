import type { Allowlist } from '../catalog/model-access.ts';

// Which MCP servers and tools a request may have the gateway run (docs/tools.md): the
// `allowed_mcp_servers` lists of the account and the key (their allowlists), intersected.
// An entry is a server's name (every tool of it) or `server/tool` (that tool only). A level
// without a list restricts nothing; an empty list allows no server.

export class McpScope {
  private readonly lists: ReadonlyArray<readonly string[]>;

  private constructor(lists: ReadonlyArray<readonly string[]>) {
    this.lists = lists;
  }

  /** Null when no level has a list (the check then costs nothing). */
  static of(levels: ReadonlyArray<Allowlist | null | undefined>): McpScope | null {
    const lists = levels.flatMap((l) => (l?.mcpServers === undefined ? [] : [l.mcpServers]));
    return lists.length === 0 ? null : new McpScope(lists);
  }

  /** Every list names the server, whole or by one of its tools. */
  allowsServer(server: string): boolean {
    return this.lists.every((list) => list.some((e) => e === server || e.startsWith(`${server}/`)));
  }

  /** Every list names the server whole, or this tool of it. */
  allowsTool(server: string, tool: string): boolean {
    return this.lists.every((list) => list.includes(server) || list.includes(`${server}/${tool}`));
  }
}

/** The scope of a caller: its account's list and its key's (null: unrestricted). */
export function mcpScopeOf(auth: { account: { allowlist: Allowlist | null }; key: { allowlist: Allowlist | null } }): McpScope | null {
  if (auth.account.allowlist?.mcpServers === undefined && auth.key.allowlist?.mcpServers === undefined) return null;
  return McpScope.of([auth.account.allowlist, auth.key.allowlist]);
}
