import type {
  AssistantMessage,
  CacheControl,
  FilePart,
  ImagePart,
  Message,
  TextPart,
  ToolResultPart,
  UserContentPart,
} from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type {
  AnthropicBlock,
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicUserBlock,
} from './anthropic-wire-types.ts';

// Canonical messages → Anthropic's top-level `system` plus alternating user/assistant turns.
//
// - System messages before the conversation starts become the `system` blocks. A system
//   message in the middle of the conversation becomes a text block of a user turn at its
//   place, unchanged: Anthropic has no system role there, and hoisting it to the top would
//   rewrite the start of the prompt, which moves every cache breakpoint behind it and
//   changes what the instruction applies to.
// - Consecutive messages of one role merge into one turn. Tool results go into the user
//   turn ahead of its other content, as Anthropic requires.
// - Reasoning is replayed only when signed: `thinking` and `redacted_thinking` blocks go
//   back unchanged and in order; unsigned reasoning came from another provider and Anthropic
//   rejects it, so it is dropped.
// - Empty text blocks are dropped (Anthropic rejects them), and a message left with nothing
//   adds no turn.
// - `cache_control` (with its ttl) stays on the block it was on. The front dialects already
//   cap breakpoints at 4.

export interface AnthropicConversation {
  system: AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

export function convertToAnthropicMessages(messages: readonly Message[]): AnthropicConversation {
  const b = new TurnBuilder();
  let inConversation = false;
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        for (const part of m.content) {
          const block = textBlock(part);
          if (block === null) continue;
          if (inConversation) b.add('user', block);
          else b.system.push(block);
        }
        break;
      case 'user':
        inConversation = true;
        for (let i = 0; i < m.content.length; i++) {
          const block = userBlock(m.content[i]!);
          if (block !== null) b.add('user', block);
        }
        break;
      case 'assistant':
        inConversation = true;
        addAssistant(b, m);
        break;
      case 'tool':
        inConversation = true;
        for (const part of m.content) b.addToolResult(toolResultBlock(part));
        break;
      default:
        assertNever(m);
    }
  }
  return { system: b.system, messages: b.turns };
}

class TurnBuilder {
  readonly system: AnthropicTextBlock[] = [];
  readonly turns: AnthropicMessage[] = [];
  private current: AnthropicMessage | null = null;
  /** Tool results at the head of the current user turn. */
  private leadingResults = 0;

  add(role: 'user' | 'assistant', block: AnthropicBlock): void {
    this.turn(role).content.push(block);
  }

  addToolResult(block: AnthropicToolResultBlock): void {
    const turn = this.turn('user');
    if (this.leadingResults === turn.content.length) turn.content.push(block);
    else turn.content.splice(this.leadingResults, 0, block);
    this.leadingResults++;
  }

  private turn(role: 'user' | 'assistant'): AnthropicMessage {
    const current = this.current;
    if (current !== null && current.role === role) return current;
    const next: AnthropicMessage = { role, content: [] };
    this.turns.push(next);
    this.current = next;
    this.leadingResults = 0;
    return next;
  }
}

function addAssistant(b: TurnBuilder, m: AssistantMessage): void {
  let sawText = false;
  for (const part of m.content) {
    switch (part.type) {
      case 'text': {
        const block = textBlock(part);
        if (block !== null) {
          b.add('assistant', block);
          sawText = true;
        }
        break;
      }
      case 'tool-call': {
        const block: AnthropicBlock = { type: 'tool_use', id: toolUseId(part.id), name: part.name, input: parseToolInput(part.arguments) };
        if (part.cacheControl !== undefined) block.cache_control = cacheControl(part.cacheControl);
        b.add('assistant', block);
        break;
      }
      case 'reasoning':
        if (part.signature !== undefined && part.signature.length > 0) {
          b.add('assistant', { type: 'thinking', thinking: part.text, signature: part.signature });
        }
        break;
      case 'redacted-reasoning':
        b.add('assistant', { type: 'redacted_thinking', data: part.data });
        break;
      case 'audio-output':
        // What the assistant said aloud: its transcript is the turn's text here.
        if (part.transcript.length > 0) {
          b.add('assistant', { type: 'text', text: part.transcript });
          sawText = true;
        }
        break;
      case 'image-output':
        // Assistant turns take no image blocks at Anthropic: a generated image is left out.
        break;
      default:
        assertNever(part);
    }
  }
  // A refusal replayed from an OpenAI-style answer is what the assistant said.
  if (!sawText && m.refusal !== undefined && m.refusal.length > 0) b.add('assistant', { type: 'text', text: m.refusal });
}

function textBlock(part: TextPart): AnthropicTextBlock | null {
  if (part.text.length === 0) return null;
  const block: AnthropicTextBlock = { type: 'text', text: part.text };
  if (part.cacheControl !== undefined) block.cache_control = cacheControl(part.cacheControl);
  return block;
}

function userBlock(part: UserContentPart): AnthropicUserBlock | null {
  switch (part.type) {
    case 'text':
      return textBlock(part);
    case 'image':
      return imageBlock(part);
    case 'file':
      return fileBlock(part);
    case 'audio':
      // Dropping it would answer a question the user did not ask.
      throw new GatewayError(
        'unsupported_content',
        'Audio input is not supported by Anthropic models; send it to a model that takes audio.',
      );
    default:
      return assertNever(part);
  }
}

function imageBlock(part: ImagePart): AnthropicImageBlock {
  const inline = parseDataUri(part.url);
  const block: AnthropicImageBlock =
    inline !== null
      ? { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } }
      : { type: 'image', source: { type: 'url', url: part.url } };
  if (part.cacheControl !== undefined) block.cache_control = cacheControl(part.cacheControl);
  return block;
}

const PDF = 'application/pdf';
/** Base64 of `%PDF-`: how a PDF sent without a media type is recognized. */
const PDF_MAGIC_BASE64 = 'JVBERi0';

/** PDFs become `document` blocks, plain text a text document, images `image` blocks. */
function fileBlock(part: FilePart): AnthropicImageBlock | AnthropicDocumentBlock {
  let block: AnthropicImageBlock | AnthropicDocumentBlock;
  if (part.data !== undefined) {
    const inline = parseDataUri(part.data);
    const data = inline?.data ?? part.data;
    const mediaType = part.mediaType ?? inline?.mediaType ?? (data.startsWith(PDF_MAGIC_BASE64) ? PDF : undefined);
    if (mediaType === PDF) block = { type: 'document', source: { type: 'base64', media_type: PDF, data } };
    else if (mediaType?.startsWith('image/')) block = { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
    else if (mediaType?.startsWith('text/')) {
      block = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(data, 'base64').toString('utf8') } };
    } else {
      throw new GatewayError(
        'unsupported_content',
        `Anthropic models take PDF, plain-text and image files; this file's type is ${mediaType === undefined ? 'unknown' : `'${mediaType}'`}.`,
      );
    }
  } else if (part.url !== undefined) {
    // Anthropic fetches URL documents itself and judges their type.
    block = part.mediaType?.startsWith('image/')
      ? { type: 'image', source: { type: 'url', url: part.url } }
      : { type: 'document', source: { type: 'url', url: part.url } };
  } else {
    throw new GatewayError('unsupported_content', 'A file part needs inline data or a URL.');
  }
  if (block.type === 'document' && part.filename !== undefined) block.title = part.filename;
  if (part.cacheControl !== undefined) block.cache_control = cacheControl(part.cacheControl);
  return block;
}

function toolResultBlock(part: ToolResultPart): AnthropicToolResultBlock {
  let content: AnthropicToolResultBlock['content'];
  if (typeof part.content === 'string') content = part.content;
  else {
    content = [];
    for (const p of part.content) {
      const block = p.type === 'text' ? textBlock(p) : imageBlock(p);
      if (block !== null) content.push(block);
    }
  }
  const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId(part.toolCallId), content };
  if (part.isError !== undefined) block.is_error = part.isError;
  if (part.cacheControl !== undefined) block.cache_control = cacheControl(part.cacheControl);
  return block;
}

function cacheControl(cc: CacheControl): AnthropicCacheControl {
  return cc.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cc.ttl };
}

/**
 * Tool-call arguments as the object Anthropic's `input` must be. Arguments that are not a
 * JSON object (a model of another provider may have produced broken JSON) become `{}`:
 * the turn can still be replayed, and the tool result that follows says what happened.
 */
export function parseToolInput(args: string): Record<string, unknown> {
  if (args.length === 0) return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const TOOL_ID_INVALID = /[^a-zA-Z0-9_-]/g;

/**
 * Anthropic requires tool ids to match `^[a-zA-Z0-9_-]+$`; other providers' ids may not
 * (`functions.get_weather:0`). The same rewrite applies to the call and to its result, so
 * they still pair up.
 */
function toolUseId(id: string): string {
  TOOL_ID_INVALID.lastIndex = 0;
  return TOOL_ID_INVALID.test(id) ? id.replace(TOOL_ID_INVALID, '_') : id;
}

/** `data:<type>;base64,<data>` → its parts; null for anything else (a URL). */
function parseDataUri(uri: string): { mediaType: string; data: string } | null {
  if (!uri.startsWith('data:')) return null;
  const comma = uri.indexOf(',');
  if (comma === -1) return null;
  const meta = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  const semi = meta.indexOf(';');
  const mediaType = (semi === -1 ? meta : meta.slice(0, semi)) || 'text/plain';
  if (meta.endsWith(';base64')) return { mediaType, data: payload };
  let text = payload;
  try {
    text = decodeURIComponent(payload);
  } catch {
    // not percent-encoded after all: take the characters as they are
  }
  return { mediaType, data: Buffer.from(text, 'utf8').toString('base64') };
}
