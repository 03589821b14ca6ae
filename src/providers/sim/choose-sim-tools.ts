import type { CanonicalRequest, ToolDefinition } from '../../canonical/request.ts';
import type { SimConversation } from './read-sim-conversation.ts';

const MENTIONS_TOOLS = /\b(?:tools?|call|calls|calling)\b/i;

/**
 * Which tools the simulator calls. Only a fresh user turn gets tool calls (a tool result
 * is answered in text), and never with `tool_choice: none`. Then:
 * - a forced tool (`{type: 'tool', name}`) is called alone;
 * - otherwise the tools whose names the last user message mentions (whole word, any case),
 *   in order of mention, all of them unless `parallelToolCalls` is false;
 * - if it names none: `required` calls the first tool, and `auto` calls the first tool only
 *   when the message says "tool" or "call", else the answer is text.
 */
export function chooseSimTools(req: CanonicalRequest, conversation: SimConversation): ToolDefinition[] {
  const tools = req.tools;
  if (tools === undefined || tools.length === 0 || !conversation.endsWithUser) return [];
  const choice = req.toolChoice ?? { type: 'auto' };
  if (choice.type === 'none') return [];
  if (choice.type === 'tool') {
    const forced = tools.find((t) => t.name === choice.name);
    if (forced !== undefined) return [forced];
  }
  const text = conversation.lastUserText;
  const named = toolsNamedIn(text, tools);
  if (named.length > 0) return req.parallelToolCalls === false ? named.slice(0, 1) : named;
  if (choice.type === 'required' || choice.type === 'tool' || MENTIONS_TOOLS.test(text)) return [tools[0]!];
  return [];
}

function toolsNamedIn(text: string, tools: readonly ToolDefinition[]): ToolDefinition[] {
  const lower = text.toLowerCase();
  const found: Array<{ tool: ToolDefinition; at: number }> = [];
  for (const tool of tools) {
    const at = indexOfWord(lower, tool.name.toLowerCase());
    if (at !== -1) found.push({ tool, at });
  }
  // Array.prototype.sort is stable: tools mentioned at the same place keep definition order.
  found.sort((a, b) => a.at - b.at);
  return found.map((f) => f.tool);
}

function indexOfWord(text: string, word: string): number {
  if (word.length === 0) return -1;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    if (!isWordChar(text.charCodeAt(at - 1)) && !isWordChar(text.charCodeAt(at + word.length))) return at;
  }
  return -1;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}
