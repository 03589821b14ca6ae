import type { CanonicalRequest } from '../../canonical/request.ts';
import type { ImageResult, ImageTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { invalidParameter } from '../../errors/gateway-error.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { malformedTaskAnswer, parseTaskJson } from '../tasks/task-answers.ts';
import { convertGeminiUsage } from './convert-gemini-usage.ts';
import type { GeminiCandidateWire, GeminiPartWire, GeminiResponseWire } from './gemini-wire-types.ts';

// Gemini's image models (gemini-2.5-flash-image) through `generateContent` with
// `responseModalities: ["IMAGE"]`: the prompt as text, an edit's images as inline data, the
// size as the nearest aspect ratio Gemini takes. One image a request (the model makes one
// candidate); a mask and a transparent background are refused; quality, style and the
// output format are not Gemini's to choose (it answers PNG).

/** Gemini's aspect ratios. */
const RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;

export function encodeGeminiImages(_req: CanonicalRequest, task: ImageTask, endpoint: Endpoint): UpstreamTaskRequest {
  const provider = endpoint.provider;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) headers['x-goog-api-key'] = provider.apiKey;
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  const model = endpoint.upstreamModel.startsWith('models/') ? endpoint.upstreamModel.slice(7) : endpoint.upstreamModel;
  return {
    url: `${provider.baseUrl.replace(/\/+$/, '')}/models/${model}:generateContent`,
    headers,
    body: JSON.stringify(geminiImageBody(task, endpoint)),
  };
}

/** The generateContent body of an image request (the Gemini API's and Vertex's alike); refuses what Gemini cannot do. */
export function geminiImageBody(task: ImageTask, endpoint: Endpoint): Record<string, unknown> {
  if (task.n > 1) throw invalidParameter('n', `Invalid 'n' for ${endpoint.upstreamModel}: Gemini image models make one image a request.`);
  if (task.mask !== undefined)
    throw invalidParameter(
      'mask',
      `Invalid 'mask' for ${endpoint.upstreamModel}: Gemini edits take no mask (describe the change in the prompt).`,
    );
  if (task.background === 'transparent')
    throw invalidParameter('background', `Invalid 'background' for ${endpoint.upstreamModel}: Gemini makes no transparent images.`);
  const parts: Record<string, unknown>[] = [{ text: task.prompt }];
  for (const image of task.images ?? []) parts.push({ inlineData: { mimeType: image.contentType, data: image.data.toString('base64') } });
  const generationConfig: Record<string, unknown> = { responseModalities: ['IMAGE'] };
  const ratio = task.size === undefined || task.size === 'auto' ? undefined : nearestRatio(task.size, RATIOS);
  if (ratio !== undefined) generationConfig.imageConfig = { aspectRatio: ratio };
  return { contents: [{ role: 'user', parts }], generationConfig };
}

/** The ratio of `ratios` closest to `<width>x<height>`. */
export function nearestRatio(size: string, ratios: readonly string[]): string {
  const [w, h] = size.split('x').map(Number) as [number, number];
  const wanted = Math.log(w / h);
  let best = ratios[0]!;
  let gap = Infinity;
  for (const ratio of ratios) {
    const [a, b] = ratio.split(':').map(Number) as [number, number];
    const d = Math.abs(Math.log(a / b) - wanted);
    if (d < gap) {
      gap = d;
      best = ratio;
    }
  }
  return best;
}

export function decodeGeminiImages(task: ImageTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const answer = parseTaskJson<GeminiResponseWire>(body, endpoint, emit);
  if (answer === null) return;
  const candidates = Array.isArray(answer.candidates) ? (answer.candidates as GeminiCandidateWire[]) : [];
  const images: ImageResult['images'] = [];
  let mimeType = 'image/png';
  let text: string | undefined;
  for (const candidate of candidates) {
    const parts = Array.isArray(candidate?.content?.parts) ? (candidate.content.parts as GeminiPartWire[]) : [];
    for (const part of parts) {
      const data = part.inlineData;
      if (
        data !== null &&
        data !== undefined &&
        typeof data.data === 'string' &&
        typeof data.mimeType === 'string' &&
        data.mimeType.startsWith('image/')
      ) {
        images.push({ b64: data.data });
        mimeType = data.mimeType;
      } else if (typeof part.text === 'string' && part.thought !== true) {
        text = (text ?? '') + part.text;
      }
    }
  }
  if (images.length === 0) {
    const reason = answer.promptFeedback?.blockReason ?? candidates[0]?.finishReason;
    return emit(
      malformedTaskAnswer(
        endpoint,
        `Gemini made no image${typeof reason === 'string' ? ` (${reason})` : ''}${text === undefined ? '' : `: ${text.slice(0, 200)}`}`,
      ),
    );
  }
  // A model that drew more than asked (it may interleave several): the client asked, and was held, for n.
  if (images.length > task.n) images.length = task.n;
  // The model's words beside its image, when it says any, stand as the revised prompt.
  if (text !== undefined && images.length === 1) images[0]!.revisedPrompt = text;
  emit({ type: 'task-result', result: { kind: 'image', images, outputFormat: mimeType.slice(6) } });
  if (answer.usageMetadata !== null && answer.usageMetadata !== undefined)
    emit({ type: 'usage', usage: convertGeminiUsage(answer.usageMetadata) });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
