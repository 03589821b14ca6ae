import type { AssistantContentPart, Message, SystemMessage, TextPart, ToolResultPart, UserContentPart } from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { invalidParameter } from '../../errors/gateway-error.ts';
import { describeType, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';
import {
  decodeDocumentBlock,
  decodeImageBlock,
  decodeRedactedThinkingBlock,
  decodeTextBlock,
  decodeThinkingBlock,
  decodeToolResultBlock,
  decodeToolUseBlock,
} from './decode-messages-blocks.ts';
import { blockType, SYSTEM, unexpectedBlock, type DecodeState } from './messages-decode-state.ts';

// `system` and `messages` of a messages request → canonical messages, in order:
// - `system` (a string or text blocks, `cache_control` kept) becomes the first message;
// - a `role: "system"` entry inside `messages` (Claude Code sends them) stays a system
//   message at its position;
// - a user message's `tool_result` blocks become one canonical `tool` message, followed by
//   a user message with the rest of its content (providers want results right after the
//   call, and the other content is the user's next turn).
// The caller has checked that `messages` is a non-empty array.

const USER_BLOCKS = "'text', 'image', 'document', 'tool_result'";
const ASSISTANT_BLOCKS = "'text', 'tool_use', 'thinking', 'redacted_thinking'";
const SYSTEM_BLOCKS = "'text'";
const ROLES = "'user', 'assistant', 'system'";

export function decodeMessagesConversation(system: unknown, messages: readonly unknown[], state: DecodeState): Message[] {
  const out: Message[] = [];
  const head = decodeTopLevelSystem(system, state);
  if (head !== null) out.push(head);
  for (let i = 0; i < messages.length; i++) decodeMessage(messages[i], i, out, state);
  return out;
}

function decodeTopLevelSystem(raw: unknown, state: DecodeState): SystemMessage | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string') return raw.length === 0 ? null : { role: 'system', content: [{ type: 'text', text: raw }] };
  if (!Array.isArray(raw)) {
    throw invalidParameter('system', `Invalid type for 'system': expected a string or an array of text blocks, got ${describeType(raw)}.`);
  }
  if (raw.length === 0) return null;
  return { role: 'system', content: decodeSystemBlocks(raw, SYSTEM, state) };
}

function decodeSystemBlocks(blocks: readonly unknown[], i: number, state: DecodeState): TextPart[] {
  const parts: TextPart[] = new Array<TextPart>(blocks.length);
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j];
    const type = blockType(block, i, j);
    if (type !== 'text') throw unexpectedBlock(type, i, j, SYSTEM_BLOCKS);
    parts[j] = decodeTextBlock(block as JsonObject, state, i, j);
  }
  return parts;
}

function decodeMessage(m: unknown, i: number, out: Message[], state: DecodeState): void {
  if (!isObject(m)) throw messageError(`messages[${i}]`, `expected a message object, got ${describeType(m)}`);
  const role = m.role;
  const content = m.content;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') {
    if (role === undefined || role === null) throw missingField(`messages[${i}].role`);
    throw messageError(`messages[${i}].role`, `must be one of ${ROLES}, got ${JSON.stringify(role)}`);
  }
  if (content === undefined || content === null) throw missingField(`messages[${i}].content`);
  if (typeof content === 'string') {
    if (role === 'assistant') {
      // An empty assistant string says "no text"; providers reject empty text blocks.
      out.push({ role: 'assistant', content: content.length === 0 ? [] : [{ type: 'text', text: content }] });
    } else {
      out.push({ role, content: [{ type: 'text', text: content }] });
    }
    return;
  }
  if (!Array.isArray(content))
    throw messageError(`messages[${i}].content`, `expected a string or an array of content blocks, got ${describeType(content)}`);
  switch (role) {
    case 'user':
      decodeUserBlocks(content, i, out, state);
      return;
    case 'assistant':
      out.push({ role: 'assistant', content: decodeAssistantBlocks(content, i, state) });
      return;
    case 'system':
      out.push({ role: 'system', content: decodeSystemBlocks(content, i, state) });
      return;
    default:
      assertNever(role);
  }
}

function decodeUserBlocks(blocks: readonly unknown[], i: number, out: Message[], state: DecodeState): void {
  let results: ToolResultPart[] | null = null;
  const parts: UserContentPart[] = [];
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j];
    const type = blockType(block, i, j);
    switch (type) {
      case 'text':
        parts.push(decodeTextBlock(block as JsonObject, state, i, j));
        break;
      case 'image':
        parts.push(decodeImageBlock(block as JsonObject, state, i, j));
        break;
      case 'document':
        parts.push(decodeDocumentBlock(block as JsonObject, state, i, j));
        break;
      case 'tool_result':
        (results ??= []).push(decodeToolResultBlock(block as JsonObject, state, i, j));
        break;
      default:
        throw unexpectedBlock(type, i, j, USER_BLOCKS);
    }
  }
  if (results !== null) out.push({ role: 'tool', content: results });
  // A message of tool results only is complete without a user message; an empty
  // content array is the client's to send (the provider judges it).
  if (parts.length > 0 || results === null) out.push({ role: 'user', content: parts });
}

function decodeAssistantBlocks(blocks: readonly unknown[], i: number, state: DecodeState): AssistantContentPart[] {
  const parts: AssistantContentPart[] = [];
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j];
    const type = blockType(block, i, j);
    switch (type) {
      case 'text': {
        const text = decodeTextBlock(block as JsonObject, state, i, j);
        if (text.text.length > 0) parts.push(text);
        break;
      }
      case 'tool_use':
        parts.push(decodeToolUseBlock(block as JsonObject, state, i, j));
        break;
      case 'thinking':
        parts.push(decodeThinkingBlock(block as JsonObject, i, j));
        break;
      case 'redacted_thinking':
        parts.push(decodeRedactedThinkingBlock(block as JsonObject, i, j));
        break;
      // An earlier answer's MCP calls (docs/tools.md), replayed: the gateway ran them then and
      // lists and runs anew; they are dropped, as the responses dialect drops mcp_call items.
      case 'mcp_tool_use':
      case 'mcp_tool_result':
        break;
      default:
        throw unexpectedBlock(type, i, j, ASSISTANT_BLOCKS);
    }
  }
  return parts;
}
