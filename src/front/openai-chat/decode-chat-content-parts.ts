import type { AudioPart, CacheControl, FilePart, ImagePart, TextPart, UserContentPart } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { dataUriMediaType, isHttpOrDataUrl, isInlinePdf } from '../../canonical/data-uri.ts';
import { describeType, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';

// Content parts of chat messages. Every problem inside `messages` is an `invalid_message`
// whose `param` is the exact path of the field; paths are only built on the error path.

/** The spec allows at most this many blocks with `cache_control` per request. */
export const MAX_CACHE_CONTROL_BLOCKS = 4;

/** Per-request decoding state shared by all messages. */
export interface ContentState {
  cacheControlBlocks: number;
  /** PDFs sent inline, for CanonicalRequest.inlinePdfs. */
  inlinePdfs: number;
}

/** `messages[i].content[j]` plus `sub` (a constant such as `.image_url`), built only for errors. */
export function partPath(i: number, j: number, sub = ''): string {
  return `messages[${i}].content[${j}]${sub}`;
}

/** A string field of (a sub-object `sub` of) part j of message i; absent → missing. */
export function requirePartString(obj: JsonObject, key: string, i: number, j: number, sub = ''): string {
  const value = obj[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingField(`${partPath(i, j, sub)}.${key}`);
  throw messageError(`${partPath(i, j, sub)}.${key}`, `expected a string, got ${describeType(value)}`);
}

function optionalPartString(obj: JsonObject, key: string, i: number, j: number, sub: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw messageError(`${partPath(i, j, sub)}.${key}`, `expected a string, got ${describeType(value)}`);
  return value;
}

const USER_PART_TYPES = "'text', 'image_url', 'file', 'input_audio'";
const DETAILS = new Set(['low', 'high', 'auto']);
const CACHE_TTLS = new Set(['5m', '1h']);

/** The part object and its `type`, or an error naming the part. */
export function partType(part: unknown, i: number, j: number): string {
  if (!isObject(part)) throw messageError(partPath(i, j), `expected a content part object, got ${describeType(part)}`);
  const type = part.type;
  if (typeof type === 'string') return type;
  if (type === undefined || type === null) throw missingField(`${partPath(i, j)}.type`);
  throw messageError(`${partPath(i, j)}.type`, `expected a string, got ${describeType(type)}`);
}

export function unknownPartType(type: string, i: number, j: number, allowed: string): GatewayError {
  return messageError(`${partPath(i, j)}.type`, `unsupported content part type ${JSON.stringify(type)} here; expected one of ${allowed}`);
}

/** A part of a user message (already known to be an object with a string `type`). */
export function decodeUserPart(part: JsonObject, type: string, i: number, j: number, state: ContentState): UserContentPart {
  let out: UserContentPart;
  switch (type) {
    case 'text':
      out = decodeTextPart(part, i, j);
      break;
    case 'image_url':
      out = decodeImagePart(part, i, j);
      break;
    case 'file':
      out = decodeFilePart(part, i, j);
      if (isInlinePdf(out)) state.inlinePdfs++;
      break;
    case 'input_audio':
      out = decodeAudioPart(part, i, j);
      break;
    default:
      throw unknownPartType(type, i, j, USER_PART_TYPES);
  }
  readCacheControl(part, out, i, j, state);
  return out;
}

export function decodeTextPart(part: JsonObject, i: number, j: number): TextPart {
  return { type: 'text', text: requirePartString(part, 'text', i, j) };
}

export function decodeImagePart(part: JsonObject, i: number, j: number): ImagePart {
  const raw = part.image_url;
  // Some clients send the URL itself rather than `{url}`; both name one image.
  if (typeof raw === 'string') return { type: 'image', url: checkUrl(raw, i, j, '.image_url') };
  if (raw === undefined || raw === null) throw missingField(partPath(i, j, '.image_url'));
  if (!isObject(raw)) throw messageError(partPath(i, j, '.image_url'), `expected an object {url, detail?}, got ${describeType(raw)}`);
  const url = checkUrl(requirePartString(raw, 'url', i, j, '.image_url'), i, j, '.image_url.url');
  const out: ImagePart = { type: 'image', url };
  const detail = raw.detail;
  if (detail !== undefined && detail !== null) {
    if (typeof detail !== 'string' || !DETAILS.has(detail)) {
      throw messageError(partPath(i, j, '.image_url.detail'), `must be one of 'low', 'high', 'auto', got ${JSON.stringify(detail)}`);
    }
    out.detail = detail as ImagePart['detail'];
  }
  return out;
}

function checkUrl(url: string, i: number, j: number, sub: string): string {
  if (!isHttpOrDataUrl(url)) throw messageError(partPath(i, j, sub), 'must be an http(s) URL or a base64 data: URI');
  return url;
}

/** Accepts the spec's `{url?, data?, type?}` and OpenAI's `{file_data?, filename?, file_id?}`. */
export function decodeFilePart(part: JsonObject, i: number, j: number): FilePart {
  const raw = part.file;
  if (raw === undefined || raw === null) throw missingField(partPath(i, j, '.file'));
  if (!isObject(raw)) throw messageError(partPath(i, j, '.file'), `expected an object, got ${describeType(raw)}`);
  const out: FilePart = { type: 'file' };
  const url = optionalPartString(raw, 'url', i, j, '.file');
  if (url !== undefined) out.url = checkUrl(url, i, j, '.file.url');
  const data = optionalPartString(raw, 'data', i, j, '.file') ?? optionalPartString(raw, 'file_data', i, j, '.file');
  if (data !== undefined) out.data = data;
  if (url === undefined && data === undefined) {
    if (raw.file_id !== undefined && raw.file_id !== null) {
      const param = partPath(i, j, '.file.file_id');
      throw new GatewayError(
        'unsupported_content',
        `Unsupported '${param}': uploaded file ids cannot be carried to providers; send the file inline as 'file_data' or by 'url'.`,
        { param },
      );
    }
    throw messageError(partPath(i, j, '.file'), "needs the file inline ('file_data' or 'data') or a 'url'");
  }
  const mediaType = optionalPartString(raw, 'type', i, j, '.file') ?? (data !== undefined ? dataUriMediaType(data) : undefined);
  if (mediaType !== undefined) out.mediaType = mediaType;
  const filename = optionalPartString(raw, 'filename', i, j, '.file');
  if (filename !== undefined) out.filename = filename;
  return out;
}

export function decodeAudioPart(part: JsonObject, i: number, j: number): AudioPart {
  const raw = part.input_audio;
  if (raw === undefined || raw === null) throw missingField(partPath(i, j, '.input_audio'));
  if (!isObject(raw)) throw messageError(partPath(i, j, '.input_audio'), `expected an object {data, format}, got ${describeType(raw)}`);
  return {
    type: 'audio',
    data: requirePartString(raw, 'data', i, j, '.input_audio'),
    format: requirePartString(raw, 'format', i, j, '.input_audio'),
  };
}

/** Reads `cache_control` of a part into `out`, counting it against the request's limit. */
export function readCacheControl(part: JsonObject, out: { cacheControl?: CacheControl }, i: number, j: number, state: ContentState): void {
  const raw = part.cache_control;
  if (raw === undefined || raw === null) return;
  if (!isObject(raw))
    throw messageError(partPath(i, j, '.cache_control'), `expected an object {type: 'ephemeral', ttl?}, got ${describeType(raw)}`);
  if (raw.type !== 'ephemeral') {
    throw messageError(partPath(i, j, '.cache_control.type'), `must be 'ephemeral', got ${JSON.stringify(raw.type ?? null)}`);
  }
  if (++state.cacheControlBlocks > MAX_CACHE_CONTROL_BLOCKS) {
    const param = partPath(i, j, '.cache_control');
    throw new GatewayError(
      'too_many_cache_control_blocks',
      `Too many cache_control blocks: at most ${MAX_CACHE_CONTROL_BLOCKS} content blocks may carry 'cache_control', and '${param}' is block ${state.cacheControlBlocks}.`,
      { param },
    );
  }
  const cc: CacheControl = { type: 'ephemeral' };
  const ttl = raw.ttl;
  if (ttl !== undefined && ttl !== null) {
    if (typeof ttl !== 'string' || !CACHE_TTLS.has(ttl)) {
      throw messageError(partPath(i, j, '.cache_control.ttl'), `must be '5m' or '1h', got ${JSON.stringify(ttl)}`);
    }
    cc.ttl = ttl;
  }
  out.cacheControl = cc;
}
