import type { CanonicalRequest } from '../../canonical/request.ts';
import type { TaskFile } from '../../canonical/task.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { readEndUser } from '../shared/decode-client-strings.ts';
import { invalidType, invalidValue, missingParameter, type JsonObject } from '../shared/read-fields.ts';
import { readImageOptions } from './read-image-options.ts';

// OpenAI's image edit request (`POST /v1/images/edits`, multipart/form-data): one or more
// images (`image`, or `image[]` as the SDKs send a list), an optional PNG `mask`, and the
// generation fields as text. Each image must be a PNG, JPEG or WebP (read from its bytes).

/** gpt-image takes up to 16 input images. */
export const MAX_EDIT_IMAGES = 16;

const TEXT_FIELDS = new Set([
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'response_format',
  'output_format',
  'output_compression',
  'background',
  'input_fidelity',
  'user',
  'stream',
  'partial_images',
]);
const FILE_FIELDS = new Set(['image', 'image[]', 'mask']);
const NUMERIC = new Set(['n', 'output_compression', 'partial_images']);

/** A parsed multipart body (the server's MultipartForm): text fields and files by name. */
interface UploadForm {
  fields: ReadonlyMap<string, readonly string[]>;
  files: ReadonlyMap<string, readonly TaskFile[]>;
}

function isUploadForm(body: unknown): body is UploadForm {
  return (
    typeof body === 'object' && body !== null && (body as UploadForm).fields instanceof Map && (body as UploadForm).files instanceof Map
  );
}

export function decodeImageEditRequest(body: unknown): CanonicalRequest {
  if (!isUploadForm(body)) {
    throw invalidType('body', 'multipart/form-data (image files and text fields, as OpenAI takes image edits)', body);
  }
  for (const name of body.fields.keys()) {
    if (FILE_FIELDS.has(name)) throw invalidType(name, 'a file', 'a string');
    if (!TEXT_FIELDS.has(name))
      throw invalidValue(name, `unknown parameter for image edits (accepted: ${[...TEXT_FIELDS, ...FILE_FIELDS].join(', ')})`);
  }
  for (const name of body.files.keys()) {
    if (!FILE_FIELDS.has(name)) throw invalidValue(name, `unexpected file (files are image, image[] and mask)`);
  }
  const fields: JsonObject = {};
  for (const [name, values] of body.fields) {
    const value = values.at(-1);
    if (value === undefined) continue;
    fields[name] = NUMERIC.has(name) && /^-?[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value;
  }
  if (fields.stream !== undefined && fields.stream !== 'false')
    throw invalidValue('stream', 'streamed image edits are not supported: omit stream or set it to false');
  if (fields.partial_images !== undefined && fields.partial_images !== 0)
    throw invalidValue('partial_images', 'partial images need streaming, which is not supported');
  const task = readImageOptions(fields, 'edit');
  const images = [...(body.files.get('image') ?? []), ...(body.files.get('image[]') ?? [])];
  if (images.length === 0) throw missingParameter('image', 'is required: one or more image files to edit');
  if (images.length > MAX_EDIT_IMAGES) throw invalidValue('image', `at most ${MAX_EDIT_IMAGES} images, got ${images.length}`);
  task.images = images.map((file, i) => checkImage(file, images.length === 1 ? 'image' : `image[${i}]`));
  const masks = body.files.get('mask') ?? [];
  if (masks.length > 1) throw invalidValue('mask', 'at most one mask');
  if (masks[0] !== undefined) {
    const mask = checkImage(masks[0], 'mask');
    if (mask.contentType !== 'image/png') throw invalidValue('mask', 'the mask must be a PNG (with an alpha channel)');
    task.mask = mask;
  }
  const req: CanonicalRequest = { models: decodeModelList(fields), messages: [], sampling: {}, stream: false, extra: {}, task };
  const user = readEndUser(fields, 'user');
  if (user !== undefined) req.user = user;
  return req;
}

/** The file with its real media type, read from its first bytes; anything but PNG, JPEG or WebP is a 400. */
function checkImage(file: TaskFile, param: string): TaskFile {
  const type = sniffImageType(file.data);
  if (type === null) throw invalidValue(param, `"${file.filename}" is not a PNG, JPEG or WebP image`);
  return { filename: file.filename || `image.${type.slice(6)}`, contentType: type, data: file.data };
}

export function sniffImageType(data: Buffer): string | null {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}
