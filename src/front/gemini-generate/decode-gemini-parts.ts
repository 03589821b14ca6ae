import type { AudioPart, FilePart, ImagePart, UserContentPart } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { describeType, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';

// One media part of Gemini `contents` → a canonical content part:
// - `inlineData {mimeType, data}`: an image (`image/*`) as a data: URI, audio (`audio/*`)
//   with its format, anything else (a PDF, text) as an inline file;
// - `fileData {mimeType?, fileUri}`: an http(s) URI, as an image URL or a file URL. Other
//   URIs (`gs://`, Google's Files API) point into Google's storage, which no other provider
//   behind the gateway can read: a clear 400.

/** `audio/<subtype>` → the canonical audio format (what OpenAI's `input_audio.format` names). */
const AUDIO_FORMATS: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/aac': 'aac',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/aiff': 'aiff',
  'audio/pcm': 'pcm16',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
};

export function partPath(i: number, j: number, rest = ''): string {
  return `contents[${i}].parts[${j}]${rest}`;
}

function requireString(obj: JsonObject, key: string, path: string): string {
  const value = obj[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingField(`${path}.${key}`);
  throw messageError(`${path}.${key}`, `expected a string, got ${describeType(value)}`);
}

export function decodeInlineData(raw: unknown, path: string): ImagePart | AudioPart | FilePart {
  if (!isObject(raw)) throw messageError(path, `expected an object {mimeType, data}, got ${describeType(raw)}`);
  const mimeType = requireString(raw, 'mimeType', path).toLowerCase();
  const data = requireString(raw, 'data', path);
  if (mimeType.startsWith('image/')) return { type: 'image', url: `data:${mimeType};base64,${data}` };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, format: AUDIO_FORMATS[mimeType] ?? mimeType.slice(6) };
  return { type: 'file', data, mediaType: mimeType };
}

export function decodeFileData(raw: unknown, path: string): ImagePart | FilePart {
  if (!isObject(raw)) throw messageError(path, `expected an object {mimeType, fileUri}, got ${describeType(raw)}`);
  const uri = requireString(raw, 'fileUri', path);
  const mime = raw.mimeType;
  if (mime !== undefined && mime !== null && typeof mime !== 'string')
    throw messageError(`${path}.mimeType`, `expected a string, got ${describeType(mime)}`);
  if (!uri.startsWith('https://') && !uri.startsWith('http://')) {
    throw new GatewayError(
      'unsupported_content',
      `Unsupported '${path}.fileUri': only http(s) URIs can be carried to every provider; send the file as inlineData.`,
      { param: `${path}.fileUri` },
    );
  }
  const mimeType = typeof mime === 'string' ? mime.toLowerCase() : undefined;
  if (mimeType === undefined || mimeType.startsWith('image/')) return { type: 'image', url: uri };
  return { type: 'file', url: uri, mediaType: mimeType };
}

/** A media or text part of a user turn; undefined when the part is not media. */
export function decodeUserMediaPart(part: JsonObject, i: number, j: number): UserContentPart | undefined {
  if (part.inlineData !== undefined && part.inlineData !== null) return decodeInlineData(part.inlineData, partPath(i, j, '.inlineData'));
  if (part.fileData !== undefined && part.fileData !== null) return decodeFileData(part.fileData, partPath(i, j, '.fileData'));
  return undefined;
}

/**
 * Part kinds of Gemini's API that run inside Google (code execution, its results) or
 * reference Google's state: no other provider has them.
 */
const GOOGLE_ONLY_PARTS: readonly string[] = ['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'];

export function unsupportedPart(part: JsonObject, i: number, j: number): GatewayError {
  for (const kind of GOOGLE_ONLY_PARTS) {
    if (part[kind] !== undefined && part[kind] !== null) {
      return new GatewayError(
        'unsupported_content',
        `Unsupported '${partPath(i, j, `.${kind}`)}': ${kind} parts belong to Google's built-in tools, which the gateway cannot carry to every provider.`,
        { param: partPath(i, j, `.${kind}`) },
      );
    }
  }
  return messageError(partPath(i, j), 'a part must hold one of text, inlineData, fileData, functionCall, functionResponse');
}
