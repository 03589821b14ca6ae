import type { AudioPart, FilePart, ImagePart, TextPart, UserContentPart } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { dataUriMediaType, isHttpOrDataUrl } from '../../canonical/data-uri.ts';
import { describeType, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';

// Content parts of `input` items (`input_text`, `input_image`, `input_file`, `input_audio`)
// → canonical parts. Every problem is an `invalid_message` whose `param` is the exact path
// (`input[2].content[0].image_url`); paths are only built on the error path.

/** `input[i]` plus `sub` (a constant such as `.call_id`). */
export function itemPath(i: number, sub = ''): string {
  return `input[${i}]${sub}`;
}

/** `input[i].<list>[j]` plus `sub`; `list` is `content` or `output`. */
export function partPath(i: number, list: string, j: number, sub = ''): string {
  return `input[${i}].${list}[${j}]${sub}`;
}

/** A required string field of item i; absent → missing, another type → invalid. */
export function requireItemText(obj: JsonObject, key: string, i: number): string {
  const value = obj[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingField(itemPath(i, `.${key}`));
  throw messageError(itemPath(i, `.${key}`), `expected a string, got ${describeType(value)}`);
}

/** A required string field of (a sub-object `sub` of) part j in `input[i].<list>`. */
export function requirePartText(obj: JsonObject, key: string, i: number, list: string, j: number, sub = ''): string {
  const value = obj[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingField(partPath(i, list, j, `${sub}.${key}`));
  throw messageError(partPath(i, list, j, `${sub}.${key}`), `expected a string, got ${describeType(value)}`);
}

function optionalPartText(obj: JsonObject, key: string, i: number, list: string, j: number): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw messageError(partPath(i, list, j, `.${key}`), `expected a string, got ${describeType(value)}`);
  return value;
}

/** The part object's `type`, or an error naming the part. */
export function partType(part: unknown, i: number, list: string, j: number): string {
  if (!isObject(part)) throw messageError(partPath(i, list, j), `expected a content part object, got ${describeType(part)}`);
  const type = part.type;
  if (typeof type === 'string') return type;
  if (type === undefined || type === null) throw missingField(partPath(i, list, j, '.type'));
  throw messageError(partPath(i, list, j, '.type'), `expected a string, got ${describeType(type)}`);
}

export function unknownPartType(type: string, i: number, list: string, j: number, allowed: string): GatewayError {
  return messageError(
    partPath(i, list, j, '.type'),
    `unsupported content part type ${JSON.stringify(type)} here; expected one of ${allowed}`,
  );
}

const USER_PART_TYPES = "'input_text', 'input_image', 'input_file', 'input_audio'";
const DETAILS: ReadonlySet<string> = new Set(['low', 'high', 'auto']);

/** A part of a user message. `text` is accepted beside `input_text`: clients mix the two spellings. */
export function decodeUserPart(part: JsonObject, type: string, i: number, j: number): UserContentPart {
  switch (type) {
    case 'input_text':
    case 'text':
      return decodeTextPart(part, i, 'content', j);
    case 'input_image':
      return decodeImagePart(part, i, 'content', j);
    case 'input_file':
      return decodeFilePart(part, i, 'content', j);
    case 'input_audio':
      return decodeAudioPart(part, i, j);
    default:
      throw unknownPartType(type, i, 'content', j, USER_PART_TYPES);
  }
}

export function decodeTextPart(part: JsonObject, i: number, list: string, j: number): TextPart {
  return { type: 'text', text: requirePartText(part, 'text', i, list, j) };
}

export function decodeImagePart(part: JsonObject, i: number, list: string, j: number): ImagePart {
  const url = optionalPartText(part, 'image_url', i, list, j);
  if (url === undefined) {
    if (part.file_id !== undefined && part.file_id !== null) throw uploadedFile(partPath(i, list, j, '.file_id'));
    throw missingField(partPath(i, list, j, '.image_url'));
  }
  if (!isHttpOrDataUrl(url)) throw messageError(partPath(i, list, j, '.image_url'), 'must be an http(s) URL or a base64 data: URI');
  const out: ImagePart = { type: 'image', url };
  // Newer detail levels are left to the provider default rather than refused.
  const detail = part.detail;
  if (typeof detail === 'string' && DETAILS.has(detail)) out.detail = detail as ImagePart['detail'];
  return out;
}

function decodeFilePart(part: JsonObject, i: number, list: string, j: number): FilePart {
  const out: FilePart = { type: 'file' };
  const data = optionalPartText(part, 'file_data', i, list, j);
  const url = optionalPartText(part, 'file_url', i, list, j);
  if (data !== undefined) {
    out.data = data;
    const mediaType = dataUriMediaType(data);
    if (mediaType !== undefined) out.mediaType = mediaType;
  }
  if (url !== undefined) {
    if (!isHttpOrDataUrl(url)) throw messageError(partPath(i, list, j, '.file_url'), 'must be an http(s) URL or a base64 data: URI');
    out.url = url;
  }
  if (data === undefined && url === undefined) {
    if (part.file_id !== undefined && part.file_id !== null) throw uploadedFile(partPath(i, list, j, '.file_id'));
    throw messageError(partPath(i, list, j), "needs the file inline ('file_data') or a 'file_url'");
  }
  const filename = optionalPartText(part, 'filename', i, list, j);
  if (filename !== undefined) out.filename = filename;
  return out;
}

function decodeAudioPart(part: JsonObject, i: number, j: number): AudioPart {
  const raw = part.input_audio;
  if (raw === undefined || raw === null) throw missingField(partPath(i, 'content', j, '.input_audio'));
  if (!isObject(raw))
    throw messageError(partPath(i, 'content', j, '.input_audio'), `expected an object {data, format}, got ${describeType(raw)}`);
  return {
    type: 'audio',
    data: requirePartText(raw, 'data', i, 'content', j, '.input_audio'),
    format: requirePartText(raw, 'format', i, 'content', j, '.input_audio'),
  };
}

/** Uploaded-file ids live in OpenAI's file store, which no other provider can read. */
function uploadedFile(param: string): GatewayError {
  return new GatewayError(
    'unsupported_content',
    `Unsupported '${param}': uploaded file ids cannot be carried to providers; send the content inline (a data: URI) or by URL.`,
    { param },
  );
}
