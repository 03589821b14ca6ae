import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { ResponseMeta } from '../front-dialect.ts';

/** OpenAI's images answer. */
export interface ImagesAnswer {
  created: number;
  data: { b64_json?: string; url?: string; revised_prompt?: string }[];
  output_format: string;
  size?: string;
  quality?: string;
  background?: string;
  usage: {
    input_tokens: number;
    input_tokens_details: { text_tokens: number; image_tokens: number };
    output_tokens: number;
    total_tokens: number;
    cost?: number;
  };
}

/** Keeps an image for the account and returns the URL that serves it (`response_format: url`). */
export type ImagePublisher = (image: Buffer, contentType: string, meta: ResponseMeta) => string;

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * The answer in OpenAI's shape: base64 images, or URLs on the gateway when the client asked
 * for `url` (or named none where the vendor's default is `url`: dall-e).
 */
export function encodeImagesResponse(
  resp: CanonicalResponse,
  meta: ResponseMeta,
  req: CanonicalRequest,
  publish: ImagePublisher,
): ImagesAnswer {
  const result = resp.task?.kind === 'image' ? resp.task : null;
  const task = req.task?.kind === 'image' ? req.task : null;
  const format = task?.responseFormat ?? result?.defaultFormat ?? 'b64_json';
  const outputFormat = result?.outputFormat ?? 'png';
  const data = (result?.images ?? []).map((image) => {
    const item: ImagesAnswer['data'][number] =
      format === 'url'
        ? { url: publish(Buffer.from(image.b64, 'base64'), CONTENT_TYPES[outputFormat] ?? 'application/octet-stream', meta) }
        : { b64_json: image.b64 };
    if (image.revisedPrompt !== undefined) item.revised_prompt = image.revisedPrompt;
    return item;
  });
  const usage = resp.usage;
  const imageTokens = usage?.imageInputTokens ?? 0;
  const input = usage?.input ?? 0;
  const answer: ImagesAnswer = {
    created: meta.created,
    data,
    output_format: outputFormat,
    usage: {
      input_tokens: input,
      input_tokens_details: { text_tokens: Math.max(0, input - imageTokens), image_tokens: imageTokens },
      output_tokens: usage?.output ?? 0,
      total_tokens: input + (usage?.output ?? 0),
    },
  };
  const size = result?.size ?? task?.size;
  if (size !== undefined) answer.size = size;
  const quality = result?.quality ?? task?.quality;
  if (quality !== undefined) answer.quality = quality;
  const background = result?.background ?? task?.background;
  if (background !== undefined) answer.background = background;
  if (meta.cost !== undefined) answer.usage.cost = meta.cost;
  return answer;
}
