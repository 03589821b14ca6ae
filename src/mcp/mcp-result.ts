import type { McpTool, McpToolResult } from './mcp-types.ts';

// What an MCP server answers is untrusted: read by shape, never trusted to be well formed,
// and bounded (the bytes of the answer are bounded before this, by guarded-fetch.ts).

/** The most tools taken from one server's list. */
export const MAX_TOOLS_PER_SERVER = 256;
/** A tool name the gateway passes on: what every vendor's function names accept. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** A description longer than this is cut (it goes into every model turn's prompt). */
const MAX_DESCRIPTION_CHARS = 4096;

/** The tools of a `tools/list` answer that the gateway can offer a model (well-formed names and object schemas). */
export function toolsOf(listed: unknown): McpTool[] {
  if (!Array.isArray(listed)) return [];
  const out: McpTool[] = [];
  for (const item of listed) {
    if (out.length >= MAX_TOOLS_PER_SERVER) break;
    if (item === null || typeof item !== 'object') continue;
    const t = item as Record<string, unknown>;
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) continue;
    const schema =
      t.inputSchema !== null && typeof t.inputSchema === 'object' && !Array.isArray(t.inputSchema)
        ? (t.inputSchema as Record<string, unknown>)
        : { type: 'object' };
    const tool: McpTool = {
      name: t.name,
      description: typeof t.description === 'string' ? t.description.slice(0, MAX_DESCRIPTION_CHARS) : null,
      inputSchema: { ...schema, type: 'object' },
    };
    if (t.annotations !== null && typeof t.annotations === 'object' && !Array.isArray(t.annotations))
      tool.annotations = t.annotations as Record<string, unknown>;
    out.push(tool);
  }
  return out;
}

/**
 * A `tools/call` answer as text for the model: text items (and the text of embedded
 * resources) joined by blank lines; other items named by their kind; without any content,
 * the structured content as JSON. At most `maxChars` characters.
 */
export function toolResultText(result: unknown, maxChars: number): McpToolResult {
  const r = (result ?? {}) as Record<string, unknown>;
  const pieces: string[] = [];
  if (Array.isArray(r.content)) {
    for (const item of r.content as Array<Record<string, unknown> | null>) {
      if (item === null || typeof item !== 'object') continue;
      if (item.type === 'text' && typeof item.text === 'string') pieces.push(item.text);
      else if (item.type === 'resource' && typeof (item.resource as Record<string, unknown>)?.text === 'string')
        pieces.push((item.resource as { text: string }).text);
      else if (item.type === 'resource_link' && typeof item.uri === 'string') pieces.push(`[resource: ${item.uri}]`);
      else if (typeof item.type === 'string') pieces.push(`[${item.type}${typeof item.mimeType === 'string' ? `: ${item.mimeType}` : ''}]`);
    }
  }
  if (pieces.length === 0 && r.structuredContent !== undefined) pieces.push(JSON.stringify(r.structuredContent));
  // The legacy (2024-10-07) result shape.
  if (pieces.length === 0 && r.toolResult !== undefined)
    pieces.push(typeof r.toolResult === 'string' ? r.toolResult : JSON.stringify(r.toolResult));
  let text = pieces.join('\n\n');
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}\n[truncated]`;
  return { text, isError: r.isError === true };
}
