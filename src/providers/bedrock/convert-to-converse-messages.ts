import type { Message } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type {
  AnthropicBlock,
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
} from '../anthropic/anthropic-wire-types.ts';
import { convertToAnthropicMessages } from '../anthropic/convert-to-anthropic-messages.ts';
import type {
  ConverseCachePoint,
  ConverseContentBlock,
  ConverseDocumentBlock,
  ConverseImageBlock,
  ConverseImageFormat,
  ConverseMessage,
  ConverseTextBlock,
} from './bedrock-wire-types.ts';

// Canonical messages → Converse `system` and `messages`. The turns are built by the
// Anthropic conversion (the Converse API has Anthropic's shape: a top-level system,
// alternating user/assistant turns, tool results at the head of the user turn, signed
// reasoning replayed as it came, unsigned reasoning dropped) and each block is then said
// in Converse's words: a `cache_control` becomes a `cachePoint` block after it, images and
// documents travel as bytes (base64 in JSON), which is the only way Converse takes them
// without S3.

export interface ConverseConversation {
  system: Array<ConverseTextBlock | ConverseCachePoint>;
  messages: ConverseMessage[];
}

const CACHE_POINT: ConverseCachePoint = { cachePoint: { type: 'default' } };

const IMAGE_FORMATS: Readonly<Record<string, ConverseImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function convertToConverseMessages(messages: readonly Message[]): ConverseConversation {
  for (const m of messages) {
    if (m.role === 'user' && m.content.some((p) => p.type === 'audio')) {
      throw new GatewayError(
        'unsupported_content',
        'Audio input is not supported by the Bedrock Converse API; send it to a model that takes audio.',
      );
    }
  }
  const conversation = convertToAnthropicMessages(messages);
  const names = new DocumentNames();
  const system: ConverseConversation['system'] = [];
  for (const block of conversation.system) pushWithCachePoint(system, { text: block.text }, block.cache_control);
  const out: ConverseMessage[] = conversation.messages.map((turn) => {
    const content: ConverseContentBlock[] = [];
    for (const block of turn.content) addBlock(content, block, names);
    return { role: turn.role, content };
  });
  return { system, messages: out };
}

function addBlock(content: ConverseContentBlock[], block: AnthropicBlock, names: DocumentNames): void {
  switch (block.type) {
    case 'text':
      pushWithCachePoint(content, { text: block.text }, block.cache_control);
      return;
    case 'image':
      pushWithCachePoint(content, imageBlock(block), block.cache_control);
      return;
    case 'document':
      pushWithCachePoint(content, documentBlock(block, names), block.cache_control);
      return;
    case 'tool_use':
      pushWithCachePoint(content, { toolUse: { toolUseId: block.id, name: block.name, input: block.input } }, block.cache_control);
      return;
    case 'tool_result': {
      const results =
        typeof block.content === 'string'
          ? block.content.length > 0
            ? [{ text: block.content }]
            : []
          : block.content.map((b) => (b.type === 'text' ? { text: b.text } : imageBlock(b)));
      const result: ConverseContentBlock = { toolResult: { toolUseId: block.tool_use_id, content: results } };
      if (block.is_error !== undefined) result.toolResult.status = block.is_error ? 'error' : 'success';
      pushWithCachePoint(content, result, block.cache_control);
      return;
    }
    case 'thinking':
      content.push({ reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } });
      return;
    case 'redacted_thinking':
      content.push({ reasoningContent: { redactedContent: block.data } });
      return;
    default:
      block satisfies never;
  }
}

function pushWithCachePoint<T>(into: Array<T | ConverseCachePoint>, block: T, cc: AnthropicCacheControl | undefined): void {
  into.push(block);
  if (cc !== undefined) into.push(CACHE_POINT);
}

function imageBlock(block: AnthropicImageBlock): ConverseImageBlock {
  if (block.source.type !== 'base64') {
    throw new GatewayError('unsupported_content', 'Bedrock takes images inline only: send the image as a data: URI, not a URL.');
  }
  const format = IMAGE_FORMATS[block.source.media_type];
  if (format === undefined) {
    throw new GatewayError(
      'unsupported_content',
      `Bedrock takes PNG, JPEG, GIF and WebP images; this image's type is '${block.source.media_type}'.`,
    );
  }
  return { image: { format, source: { bytes: block.source.data } } };
}

function documentBlock(block: AnthropicDocumentBlock, names: DocumentNames): ConverseDocumentBlock {
  const source = block.source;
  if (source.type === 'url') {
    throw new GatewayError('unsupported_content', 'Bedrock takes documents inline only: send the file as data, not a URL.');
  }
  const name = names.next(block.title);
  if (source.type === 'text')
    return { document: { format: 'txt', name, source: { bytes: Buffer.from(source.data, 'utf8').toString('base64') } } };
  return { document: { format: 'pdf', name, source: { bytes: source.data } } };
}

/**
 * Converse requires every document a `name` of letters, digits, single spaces, hyphens,
 * parentheses and square brackets, unique in the request: the file's name cleaned, else
 * `document`, numbered when taken.
 */
class DocumentNames {
  private readonly used = new Set<string>();

  next(title: string | undefined): string {
    const base =
      (title ?? '')
        .replace(/\.[A-Za-z0-9]{1,5}$/, '')
        .replace(/[^A-Za-z0-9\-()[\] ]/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 180) || 'document';
    let name = base;
    for (let i = 2; this.used.has(name); i++) name = `${base} (${i})`;
    this.used.add(name);
    return name;
  }
}
