import type { McpScope } from '../../mcp/mcp-scope.ts';
import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../../canonical/request.ts';
import type { McpServerChoice, ServerToolList } from '../../canonical/server-tools.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { McpRegistry } from '../../mcp/mcp-registry.ts';
import { McpCallError, type McpServerSpec } from '../../mcp/mcp-types.ts';

/** Which server and tool a name the model sees stands for. */
export interface McpToolBinding {
  server: McpServerSpec;
  tool: string;
}

/** The MCP tools of a request: what the model is given, and how to run what it calls. */
export interface McpToolSet {
  /** Tool definitions added to the model's tools (names `<server>__<tool>`, unique). */
  tools: ToolDefinition[];
  /** Model-facing name → server and tool. */
  bindings: Map<string, McpToolBinding>;
  /** Each server's list, as given to the model (responses' `mcp_list_tools` items). */
  lists: ServerToolList[];
}

/**
 * The servers a request names, checked and listed, before anything is admitted: a name the
 * registry does not know, a server the account may not use, or a URL that is not the
 * named server's is a 400 naming it (ad-hoc server URLs are not accepted: the gateway
 * calls only the servers it was configured with). A server whose tools cannot be listed
 * is a 502 `mcp_server_unavailable` naming it.
 */
export async function resolveMcpTools(
  registry: McpRegistry,
  choices: readonly McpServerChoice[],
  accountId: string,
  clientTools: readonly ToolDefinition[] | undefined,
  signal: AbortSignal,
  scope: McpScope | null = null,
): Promise<McpToolSet> {
  const servers = await Promise.all(
    choices.map(async (choice, i) => ({ choice, server: await checkedServer(registry, choice, i, accountId, scope) })),
  );
  const listed = await Promise.all(
    servers.map(async ({ choice, server }) => {
      try {
        const tools = await registry.listTools(server, signal);
        const allowed = choice.allowedTools;
        // The request's allowed_tools, and the tools the key and the account may have run (allowed_mcp_servers).
        const scoped = scope === null ? tools : tools.filter((t) => scope.allowsTool(server.name, t.name));
        return { server, tools: allowed === undefined ? scoped : scoped.filter((t) => allowed.includes(t.name)) };
      } catch (err) {
        if (err instanceof McpCallError)
          throw new GatewayError('mcp_server_unavailable', `The MCP server "${server.name}" could not list its tools: ${err.message}.`);
        throw err;
      }
    }),
  );
  const taken = new Set((clientTools ?? []).map((t) => t.name));
  const set: McpToolSet = { tools: [], bindings: new Map(), lists: [] };
  for (const { server, tools } of listed) {
    set.lists.push({
      id: `mcpl_${server.name}`,
      server: server.name,
      tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    });
    for (const tool of tools) {
      const name = modelToolName(server.name, tool.name, taken);
      taken.add(name);
      set.bindings.set(name, { server, tool: tool.name });
      const def: ToolDefinition = { name, parameters: tool.inputSchema };
      // The server's description is untrusted text: it is said whose tool this is.
      def.description = `(MCP server "${server.name}", tool "${tool.name}")${tool.description === null ? '' : ` ${tool.description}`}`;
      set.tools.push(def);
    }
  }
  return set;
}

async function checkedServer(
  registry: McpRegistry,
  choice: McpServerChoice,
  i: number,
  accountId: string,
  scope: McpScope | null,
): Promise<McpServerSpec> {
  const param = choice.form === 'spec' ? `mcp.servers[${i}].name` : choice.form === 'messages' ? 'mcp_servers' : 'tools';
  // The operator's servers the account may use, and the account's own (McpRegistry.resolve).
  const server = await registry.resolve(accountId, choice.name);
  // Not told apart from an unknown one: another account's server is not disclosed.
  if (server === undefined) {
    throw new GatewayError('invalid_parameter', `Unknown MCP server "${choice.name}": it is not one this account may use.`, { param });
  }
  if (scope !== null && !scope.allowsServer(server.name)) {
    throw new GatewayError(
      'invalid_parameter',
      `The MCP server "${choice.name}" is not one this key may use (its allowed_mcp_servers, or its account's).`,
      { param },
    );
  }
  if (choice.url !== undefined && !sameUrl(choice.url, server.url)) {
    throw new GatewayError(
      'invalid_parameter',
      `The URL given for the MCP server "${choice.name}" is not its registered URL: the gateway calls only the MCP servers it is configured with.`,
      { param },
    );
  }
  return server;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** `<server>__<tool>`, in the characters and length every vendor's function names accept; made unique with a hash when needed. */
function modelToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const plain = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (plain.length <= 64 && !taken.has(plain)) return plain;
  const hash = createHash('sha256').update(`${server}\n${tool}`).digest('hex').slice(0, 8);
  return `${plain.slice(0, 55)}_${hash}`;
}
