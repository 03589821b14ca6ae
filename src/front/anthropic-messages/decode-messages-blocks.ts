import type {
  FilePart,
  ImagePart,
  ReasoningPart,
  RedactedReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { describeType, isObject, type JsonObject } from '../shared/read-fields.ts';
import {
  blockError,
  blockPath,
  blockType,
  missingBlockField,
  readCacheControl,
  requireBlockString,
  unexpectedBlock,
  type DecodeState,
} from './messages-decode-state.ts';

// The content blocks of a messages request, one decoder per block type. Each takes the
// block (already known to be an object with a string `type`) and its location.

const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function decodeTextBlock(block: JsonObject, state: DecodeState, i: number, j: number, k = -1): TextPart {
  // `citations` on input text only matter to Anthropic's citation feature; they are dropped.
  const part: TextPart = { type: 'text', text: requireBlockString(block, 'text', i, j, k) };
  readCacheControl(block, part, state, i, j, k);
  return part;
}

/** `source` base64 → a data: URI; `url` → the URL. Uploaded files cannot reach other providers. */
export function decodeImageBlock(block: JsonObject, state: DecodeState, i: number, j: number, k = -1): ImagePart {
  const source = block.source;
  const path = `${blockPath(i, j, k)}.source`;
  if (source === undefined || source === null) throw missingBlockField(i, path);
  if (!isObject(source)) throw blockError(i, path, `expected an object {type: 'base64', media_type, data}, got ${describeType(source)}`);
  let part: ImagePart;
  switch (source.type) {
    case 'base64': {
      const mediaType = source.media_type;
      if (typeof mediaType !== 'string' || !IMAGE_MEDIA_TYPES.has(mediaType)) {
        if (mediaType === undefined || mediaType === null) throw missingBlockField(i, `${path}.media_type`);
        throw blockError(
          i,
          `${path}.media_type`,
          `must be one of 'image/jpeg', 'image/png', 'image/gif', 'image/webp', got ${JSON.stringify(mediaType)}`,
        );
      }
      const data = source.data;
      if (typeof data !== 'string') {
        if (data === undefined || data === null) throw missingBlockField(i, `${path}.data`);
        throw blockError(i, `${path}.data`, `expected a base64 string, got ${describeType(data)}`);
      }
      part = { type: 'image', url: `data:${mediaType};base64,${data}` };
      break;
    }
    case 'url': {
      const url = source.url;
      if (typeof url !== 'string' || !(url.startsWith('https://') || url.startsWith('http://'))) {
        if (url === undefined || url === null) throw missingBlockField(i, `${path}.url`);
        throw blockError(i, `${path}.url`, 'must be an http(s) URL');
      }
      part = { type: 'image', url };
      break;
    }
    case 'file':
      throw new GatewayError(
        'unsupported_content',
        `Unsupported '${path}': uploaded file ids cannot be carried to providers; send the image as base64 data.`,
        { param: `${path}.type` },
      );
    case undefined:
    case null:
      throw missingBlockField(i, `${path}.type`);
    default:
      throw blockError(i, `${path}.type`, `must be 'base64' or 'url', got ${JSON.stringify(source.type)}`);
  }
  readCacheControl(block, part, state, i, j, k);
  return part;
}

/**
 * A user's `document`: a PDF (`base64` or `url` source) or plain text (`text` source) → a
 * file part, its `title` the file's name. `context` and `citations` only matter to
 * Anthropic's citation feature; they are dropped. Content-block and uploaded-file sources
 * cannot reach other providers.
 */
export function decodeDocumentBlock(block: JsonObject, state: DecodeState, i: number, j: number): FilePart {
  const source = block.source;
  const path = `${blockPath(i, j)}.source`;
  if (source === undefined || source === null) throw missingBlockField(i, path);
  if (!isObject(source))
    throw blockError(i, path, `expected an object {type: 'base64', media_type: 'application/pdf', data}, got ${describeType(source)}`);
  let part: FilePart;
  switch (source.type) {
    case 'base64': {
      if (source.media_type !== 'application/pdf') {
        if (source.media_type === undefined || source.media_type === null) throw missingBlockField(i, `${path}.media_type`);
        throw blockError(i, `${path}.media_type`, `must be 'application/pdf', got ${JSON.stringify(source.media_type)}`);
      }
      part = { type: 'file', data: sourceString(source, 'data', i, path), mediaType: 'application/pdf' };
      state.inlinePdfs++;
      break;
    }
    case 'text': {
      if (source.media_type !== undefined && source.media_type !== null && source.media_type !== 'text/plain') {
        throw blockError(i, `${path}.media_type`, `must be 'text/plain', got ${JSON.stringify(source.media_type)}`);
      }
      part = { type: 'file', data: Buffer.from(sourceString(source, 'data', i, path), 'utf8').toString('base64'), mediaType: 'text/plain' };
      break;
    }
    case 'url': {
      const url = source.url;
      if (typeof url !== 'string' || !(url.startsWith('https://') || url.startsWith('http://'))) {
        if (url === undefined || url === null) throw missingBlockField(i, `${path}.url`);
        throw blockError(i, `${path}.url`, 'must be an http(s) URL');
      }
      part = { type: 'file', url, mediaType: 'application/pdf' };
      break;
    }
    case 'content':
    case 'file':
      throw new GatewayError(
        'unsupported_content',
        `Unsupported '${path}.type' ${JSON.stringify(source.type)}: the gateway carries documents as base64 PDF data, a PDF URL or plain text.`,
        { param: `${path}.type` },
      );
    case undefined:
    case null:
      throw missingBlockField(i, `${path}.type`);
    default:
      throw blockError(i, `${path}.type`, `must be 'base64', 'text' or 'url', got ${JSON.stringify(source.type)}`);
  }
  const title = block.title;
  if (typeof title === 'string' && title !== '') part.filename = title;
  else if (title !== undefined && title !== null && typeof title !== 'string')
    throw blockError(i, `${blockPath(i, j)}.title`, `expected a string, got ${describeType(title)}`);
  readCacheControl(block, part, state, i, j);
  return part;
}

function sourceString(source: JsonObject, key: string, i: number, path: string): string {
  const value = source[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingBlockField(i, `${path}.${key}`);
  throw blockError(i, `${path}.${key}`, `expected a string, got ${describeType(value)}`);
}

/** An assistant's `tool_use` → a tool call whose arguments are the JSON text of `input`. */
export function decodeToolUseBlock(block: JsonObject, state: DecodeState, i: number, j: number): ToolCallPart {
  const id = requireBlockString(block, 'id', i, j);
  const name = requireBlockString(block, 'name', i, j);
  const input = block.input;
  let args: string;
  if (input === undefined || input === null) args = '{}';
  else if (!isObject(input)) throw blockError(i, `${blockPath(i, j)}.input`, `expected an object, got ${describeType(input)}`);
  else args = JSON.stringify(input);
  const part: ToolCallPart = { type: 'tool-call', id, name, arguments: args };
  readCacheControl(block, part, state, i, j);
  (state.toolNames ??= new Map()).set(id, name);
  return part;
}

/** `thinking` → reasoning; an empty signature (a block that never had one) is no signature. */
export function decodeThinkingBlock(block: JsonObject, i: number, j: number): ReasoningPart {
  const part: ReasoningPart = { type: 'reasoning', text: requireBlockString(block, 'thinking', i, j) };
  const signature = block.signature;
  if (typeof signature === 'string') {
    if (signature.length > 0) part.signature = signature;
  } else if (signature !== undefined && signature !== null) {
    throw blockError(i, `${blockPath(i, j)}.signature`, `expected a string, got ${describeType(signature)}`);
  }
  return part;
}

export function decodeRedactedThinkingBlock(block: JsonObject, i: number, j: number): RedactedReasoningPart {
  return { type: 'redacted-reasoning', data: requireBlockString(block, 'data', i, j) };
}

const TOOL_RESULT_BLOCKS = "'text', 'image'";

/** A user's `tool_result`: its content is a string or text and image blocks. */
export function decodeToolResultBlock(block: JsonObject, state: DecodeState, i: number, j: number): ToolResultPart {
  const toolCallId = requireBlockString(block, 'tool_use_id', i, j);
  const raw = block.content;
  let content: ToolResultPart['content'];
  if (raw === undefined || raw === null) content = '';
  else if (typeof raw === 'string') content = raw;
  else if (!Array.isArray(raw)) {
    throw blockError(i, `${blockPath(i, j)}.content`, `expected a string or an array of content blocks, got ${describeType(raw)}`);
  } else {
    const parts: Array<TextPart | ImagePart> = new Array<TextPart | ImagePart>(raw.length);
    for (let k = 0; k < raw.length; k++) {
      const inner: unknown = raw[k];
      const type = blockType(inner, i, j, k);
      if (type === 'text') parts[k] = decodeTextBlock(inner as JsonObject, state, i, j, k);
      else if (type === 'image') parts[k] = decodeImageBlock(inner as JsonObject, state, i, j, k);
      else throw unexpectedBlock(type, i, j, TOOL_RESULT_BLOCKS, k);
    }
    content = parts;
  }
  const part: ToolResultPart = { type: 'tool-result', toolCallId, content };
  const name = state.toolNames?.get(toolCallId);
  if (name !== undefined) part.name = name;
  const isError = block.is_error;
  if (typeof isError === 'boolean') {
    if (isError) part.isError = true;
  } else if (isError !== undefined && isError !== null) {
    throw blockError(i, `${blockPath(i, j)}.is_error`, `expected a boolean, got ${describeType(isError)}`);
  }
  readCacheControl(block, part, state, i, j);
  return part;
}
