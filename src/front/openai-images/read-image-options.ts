import type { ImageTask } from '../../canonical/task.ts';
import { invalidType, invalidValue, missingParameter, readEnum, readNumber, type JsonObject } from '../shared/read-fields.ts';

// The fields OpenAI's image generation and edit requests share, checked as OpenAI checks
// them. Sizes are checked for their form here (`auto` or `<width>x<height>`); which sizes a
// model takes is the provider's to say (the OpenAI codec knows dall-e's and gpt-image's).

/** OpenAI's limits: 1 to 10 images a request; a prompt of at most 32,000 characters (gpt-image). */
export const MAX_IMAGES_PER_REQUEST = 10;
export const MAX_IMAGE_PROMPT_CHARS = 32_000;

const QUALITIES: ReadonlySet<string> = new Set(['auto', 'low', 'medium', 'high', 'standard', 'hd']);
const RESPONSE_FORMATS: ReadonlySet<'b64_json' | 'url'> = new Set(['b64_json', 'url']);
const OUTPUT_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp']);
const BACKGROUNDS: ReadonlySet<string> = new Set(['auto', 'transparent', 'opaque']);
const STYLES: ReadonlySet<string> = new Set(['vivid', 'natural']);
const MODERATIONS: ReadonlySet<string> = new Set(['auto', 'low']);
const FIDELITIES: ReadonlySet<string> = new Set(['high', 'low']);
const SIZE = /^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$/;

/** Reads prompt, n, size, quality, response_format, output_format, output_compression, background, style, moderation, input_fidelity. */
export function readImageOptions(body: JsonObject, operation: ImageTask['operation']): ImageTask {
  const prompt = body.prompt;
  if (prompt === undefined || prompt === null) throw missingParameter('prompt');
  if (typeof prompt !== 'string') throw invalidType('prompt', 'a string', prompt);
  if (prompt.trim().length === 0) throw invalidValue('prompt', 'must not be empty');
  if (prompt.length > MAX_IMAGE_PROMPT_CHARS)
    throw invalidValue('prompt', `at most ${MAX_IMAGE_PROMPT_CHARS} characters, got ${prompt.length}`);
  const task: ImageTask = {
    kind: 'image',
    operation,
    prompt,
    n: readNumber(body, 'n', { min: 1, max: MAX_IMAGES_PER_REQUEST, integer: true }) ?? 1,
  };
  const size = body.size;
  if (size !== undefined && size !== null) {
    if (typeof size !== 'string') throw invalidType('size', 'a string', size);
    if (size !== 'auto' && !SIZE.test(size)) throw invalidValue('size', `must be auto or <width>x<height> (e.g. 1024x1024), got "${size}"`);
    task.size = size;
  }
  const quality = readEnum(body, 'quality', QUALITIES);
  if (quality !== undefined) task.quality = quality;
  const responseFormat = readEnum(body, 'response_format', RESPONSE_FORMATS);
  if (responseFormat !== undefined) task.responseFormat = responseFormat;
  const outputFormat = readEnum(body, 'output_format', OUTPUT_FORMATS);
  if (outputFormat !== undefined) task.outputFormat = outputFormat;
  const compression = readNumber(body, 'output_compression', { min: 0, max: 100, integer: true });
  if (compression !== undefined) task.outputCompression = compression;
  const background = readEnum(body, 'background', BACKGROUNDS);
  if (background !== undefined) task.background = background;
  if (background === 'transparent' && outputFormat === 'jpeg')
    throw invalidValue('background', 'a transparent background needs output_format png or webp');
  const style = readEnum(body, 'style', STYLES);
  if (style !== undefined) task.style = style;
  const moderation = readEnum(body, 'moderation', MODERATIONS);
  if (moderation !== undefined) task.moderation = moderation;
  const fidelity = readEnum(body, 'input_fidelity', FIDELITIES);
  if (fidelity !== undefined) {
    if (operation !== 'edit') throw invalidValue('input_fidelity', 'applies to image edits only');
    task.inputFidelity = fidelity;
  }
  return task;
}
