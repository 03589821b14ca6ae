import type { CanonicalRequest } from '../../canonical/request.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { readEndUser } from '../shared/decode-client-strings.ts';
import { invalidType, invalidValue, isObject } from '../shared/read-fields.ts';
import { checkJsonDepth } from '../shared/check-json-depth.ts';
import { readImageOptions } from './read-image-options.ts';

// OpenAI's image generation request (`POST /v1/images/generations`, JSON) → the canonical
// request with an image task. Like chat: `models`/`fallbacks`, `provider` preferences, `user`.

const KNOWN = new Set([
  'model',
  'models',
  'fallbacks',
  'prompt',
  'n',
  'size',
  'quality',
  'response_format',
  'output_format',
  'output_compression',
  'background',
  'style',
  'moderation',
  'user',
  'provider',
  'stream',
  'partial_images',
]);

export function decodeImageGenerationRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw invalidType('body', 'a JSON object', body);
  checkJsonDepth(body);
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key)) throw invalidValue(key, `unknown parameter for image generation (accepted: ${[...KNOWN].join(', ')})`);
  }
  // Streamed partial images are not served: the answer comes whole.
  if (body.stream !== undefined && body.stream !== null && body.stream !== false)
    throw invalidValue('stream', 'streamed image generation is not supported: omit stream or set it to false');
  if (body.partial_images !== undefined && body.partial_images !== null && body.partial_images !== 0)
    throw invalidValue('partial_images', 'partial images need streaming, which is not supported');
  const task = readImageOptions(body, 'generate');
  const req: CanonicalRequest = { models: decodeModelList(body), messages: [], sampling: {}, stream: false, extra: {}, task };
  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  const user = readEndUser(body, 'user');
  if (user !== undefined) req.user = user;
  return req;
}
