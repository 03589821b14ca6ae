import type { CanonicalRequest, ToolResultPart } from '../../canonical/request.ts';

/** What the simulator answers to: the turn it is replying to, read off the conversation. */
export interface SimConversation {
  /** Text of the last user message, parts joined by newlines; '' when there is none. */
  lastUserText: string;
  /** Images, files and audio in the last user message (the sim does not look inside). */
  lastUserAttachments: number;
  /** True when the conversation ends with a user message, i.e. a fresh question. */
  endsWithUser: boolean;
  /** The tool results being answered, when the conversation ends with a tool message. */
  toolResults: SimToolResult[];
  /** Tool calls already in the conversation, so new call ids never repeat old ones. */
  priorToolCalls: number;
}

export interface SimToolResult {
  name: string;
  text: string;
  isError: boolean;
}

export function readSimConversation(req: CanonicalRequest): SimConversation {
  const conversation: SimConversation = {
    lastUserText: '',
    lastUserAttachments: 0,
    endsWithUser: false,
    toolResults: [],
    priorToolCalls: 0,
  };
  const callNames = new Map<string, string>();
  for (const message of req.messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      conversation.priorToolCalls++;
      callNames.set(part.id, part.name);
    }
  }
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const message = req.messages[i]!;
    if (message.role !== 'user') continue;
    const texts: string[] = [];
    for (const part of message.content) {
      if (part.type === 'text') texts.push(part.text);
      else conversation.lastUserAttachments++;
    }
    conversation.lastUserText = texts.join('\n');
    break;
  }
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'user') conversation.endsWithUser = true;
  else if (last?.role === 'tool') {
    for (const part of last.content) conversation.toolResults.push(readToolResult(part, callNames));
  }
  return conversation;
}

function readToolResult(part: ToolResultPart, callNames: Map<string, string>): SimToolResult {
  const name = part.name ?? callNames.get(part.toolCallId) ?? 'the tool';
  let text: string;
  if (typeof part.content === 'string') text = part.content;
  else {
    const texts: string[] = [];
    for (const inner of part.content) texts.push(inner.type === 'text' ? inner.text : '[image]');
    text = texts.join(' ');
  }
  return { name, text, isError: part.isError === true };
}
