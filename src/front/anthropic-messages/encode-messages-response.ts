import type { CanonicalResponse } from '../../canonical/response.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { serverToolsBefore } from '../../canonical/server-tools-order.ts';
import { mcpToolResultBlock, mcpToolUseBlock, type McpToolResultBlock, type McpToolUseBlock } from './encode-messages-mcp.ts';
import { encodeMessagesUsage, type MessagesUsage } from './encode-messages-usage.ts';
import { mapMessagesStopReason, stopSequenceOf } from './map-messages-stop-reason.ts';

// A whole answer → Anthropic's `Message` (reference §2). The id is the generation id, the
// same as the `x-generation-id` header, so a client can find the generation record; the
// model is the catalog id of the model that served. As on the chat and responses
// endpoints, `provider` names the provider that served and `usage.cost` is the charge in
// USD (when known): fields Anthropic's Message does not have, which its SDKs keep as they are.

export type MessagesContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | McpToolUseBlock
  | McpToolResultBlock;

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  /** The provider that served (not in Anthropic's Message). */
  provider: string;
  content: MessagesContentBlock[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export function encodeMessagesResponse(resp: CanonicalResponse, meta: ResponseMeta): MessagesResponse {
  const content: MessagesContentBlock[] = [];
  let hasToolCalls = false;
  for (let i = 0; i <= resp.content.length; i++) {
    for (const entry of serverToolsBefore(resp, i)) {
      if (entry.kind === 'call') content.push(mcpToolUseBlock(entry.call), mcpToolResultBlock(entry.call));
    }
    const part = resp.content[i];
    if (part === undefined) break;
    switch (part.type) {
      case 'text':
        if (part.text.length > 0) content.push({ type: 'text', text: part.text });
        break;
      case 'reasoning':
        // With `display: 'omitted'` the text goes, the signature stays: the client must
        // be able to replay the block. An Anthropic upstream was asked for `display:
        // 'omitted'` as well, so its text is already empty and its signature made for that:
        // the block goes out as Anthropic sent it. Other upstreams' text is hidden here.
        // Without a signature there is nothing left to send.
        if (!meta.excludeReasoning) content.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
        else if (part.signature !== undefined) content.push({ type: 'thinking', thinking: '', signature: part.signature });
        break;
      case 'redacted-reasoning':
        content.push({ type: 'redacted_thinking', data: part.data });
        break;
      case 'tool-call':
        hasToolCalls = true;
        content.push({ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) });
        break;
      case 'audio-output':
      case 'image-output':
        // Anthropic's Message has no block for generated audio or images (and this dialect
        // cannot ask for them: it has no `modalities`), so an image model's pictures are left out.
        break;
      default:
        assertNever(part);
    }
  }
  const stopReason = mapMessagesStopReason(resp.finish, hasToolCalls);
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    provider: meta.provider,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequenceOf(resp.finish, stopReason),
    usage: encodeMessagesUsage(resp.usage, 0, meta.cost),
  };
}

/**
 * Tool arguments arrive as JSON text; Anthropic's `input` is the object. Empty arguments
 * mean no arguments (as Anthropic's own streams say). Text that is not a JSON object (a
 * model that broke the format) cannot be an `input`: the tool gets `{}` rather than the
 * request failing after the answer was paid for.
 */
export function parseToolInput(args: string): unknown {
  if (args.length === 0) return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
