import type { McpServerChoice } from '../../canonical/server-tools.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  readBoolean,
  readString,
  readStringArray,
  type JsonObject,
} from './read-fields.ts';

// The MCP servers a request names (docs/tools.md), in each dialect's form. Which names
// exist and which the caller may use is decided at admission (server/mcp-loop/), not here.

/** The most MCP servers one request may name. */
export const MAX_MCP_SERVERS = 16;

/** The spec's `mcp: {servers: [{name, allowed_tools?}]}` (chat and responses). */
export function decodeSpecMcp(body: JsonObject): McpServerChoice[] | undefined {
  const raw = body.mcp;
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidType('mcp', 'an object {servers: [{name}]}', raw);
  const servers = raw.servers;
  if (servers === undefined || servers === null) throw missingParameter('mcp.servers');
  if (!Array.isArray(servers)) throw invalidType('mcp.servers', 'an array of {name}', servers);
  const out = servers.map((s: unknown, i: number): McpServerChoice => {
    const path = `mcp.servers[${i}]`;
    if (!isObject(s)) throw invalidType(path, 'an object {name, allowed_tools?}', s);
    const choice: McpServerChoice = { name: requiredName(s, 'name', path), form: 'spec' };
    const allowed = readStringArray(s, 'allowed_tools', path);
    if (allowed !== undefined) choice.allowedTools = allowed;
    return choice;
  });
  return checked(out, 'mcp.servers');
}

/** OpenAI's responses tool `{type: 'mcp', server_label, server_url?, allowed_tools?, require_approval?}`. */
export function decodeResponsesMcpTool(tool: JsonObject, i: number): McpServerChoice {
  const path = `tools[${i}]`;
  const choice: McpServerChoice = { name: requiredName(tool, 'server_label', path), form: 'responses-tool' };
  const url = readString(tool, 'server_url', path);
  if (url !== undefined) choice.url = url;
  const allowed = tool.allowed_tools;
  if (Array.isArray(allowed)) {
    choice.allowedTools = readStringArray(tool, 'allowed_tools', path) ?? [];
  } else if (isObject(allowed)) {
    // The filter form: {tool_names: [...]} (read_only is not known of a server's tools: refused).
    if (allowed.read_only !== undefined)
      throw invalidValue(`${path}.allowed_tools.read_only`, 'is not supported by this gateway; list tool_names');
    const names = readStringArray(allowed, 'tool_names', `${path}.allowed_tools`);
    if (names !== undefined) choice.allowedTools = names;
  } else if (allowed !== undefined && allowed !== null) {
    throw invalidType(`${path}.allowed_tools`, 'an array of tool names or {tool_names}', allowed);
  }
  // The gateway runs the tools it is allowed to without asking: only 'never' can be honoured.
  const approval = tool.require_approval;
  if (approval !== undefined && approval !== null && approval !== 'never') {
    throw invalidValue(`${path}.require_approval`, "must be 'never': the gateway runs MCP tools without an approval round trip");
  }
  if (tool.headers !== undefined || tool.authorization !== undefined) {
    throw invalidValue(
      `${path}.${tool.headers !== undefined ? 'headers' : 'authorization'}`,
      'is not accepted: the gateway holds the credentials of its MCP servers',
    );
  }
  return choice;
}

/** Anthropic's `mcp_servers: [{type: 'url', url, name, tool_configuration?, authorization_token?}]`. */
export function decodeMessagesMcpServers(body: JsonObject): McpServerChoice[] | undefined {
  const raw = body.mcp_servers;
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalidType('mcp_servers', 'an array of {type: "url", url, name}', raw);
  const out: McpServerChoice[] = [];
  raw.forEach((s: unknown, i: number) => {
    const path = `mcp_servers[${i}]`;
    if (!isObject(s)) throw invalidType(path, 'an object {type: "url", url, name}', s);
    if (s.type !== undefined && s.type !== 'url') throw invalidValue(`${path}.type`, "must be 'url'");
    if (s.authorization_token !== undefined)
      throw invalidValue(`${path}.authorization_token`, 'is not accepted: the gateway holds the credentials of its MCP servers');
    const choice: McpServerChoice = { name: requiredName(s, 'name', path), form: 'messages' };
    const url = readString(s, 'url', path);
    if (url !== undefined) choice.url = url;
    const config = s.tool_configuration;
    if (config !== undefined && config !== null) {
      if (!isObject(config)) throw invalidType(`${path}.tool_configuration`, 'an object {enabled?, allowed_tools?}', config);
      if (readBoolean(config, 'enabled', `${path}.tool_configuration`) === false) return;
      const allowed = readStringArray(config, 'allowed_tools', `${path}.tool_configuration`);
      if (allowed !== undefined) choice.allowedTools = allowed;
    }
    out.push(choice);
  });
  return checked(out, 'mcp_servers');
}

function requiredName(obj: JsonObject, key: string, path: string): string {
  const name = readString(obj, key, path);
  if (name === undefined) throw missingParameter(`${path}.${key}`);
  if (name.length === 0 || name.length > 64) throw invalidValue(`${path}.${key}`, 'must be 1 to 64 characters');
  return name;
}

function checked(out: McpServerChoice[], param: string): McpServerChoice[] | undefined {
  if (out.length > MAX_MCP_SERVERS) throw invalidValue(param, `at most ${MAX_MCP_SERVERS} servers`);
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.name)) throw invalidValue(param, `names the server "${s.name}" twice`);
    seen.add(s.name);
  }
  return out.length === 0 ? undefined : out;
}
