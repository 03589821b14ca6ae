import type { CanonicalRequest } from '../../canonical/request.ts';
import type { ImageResult, ImageTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { invalidParameter } from '../../errors/gateway-error.ts';
import { decodeGeminiImages, geminiImageBody, nearestRatio } from '../google/gemini-images.ts';
import { malformedTaskAnswer, parseTaskJson } from '../tasks/task-answers.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { vertexModelUrl } from './vertex-urls.ts';

// Images on Vertex AI: Imagen models (`imagen-*`) through `…/publishers/google/models/{model}:predict`
// (generations only: 1 to 4 images, by aspect ratio, PNG or JPEG), and Gemini image models
// through `:generateContent` with the Gemini API's body. The bearer token is added by `authorize`.

const IMAGEN_RATIOS = ['1:1', '3:4', '4:3', '9:16', '16:9'] as const;
const IMAGEN_MAX_N = 4;

export function isImagen(endpoint: Endpoint): boolean {
  return endpoint.upstreamModel.startsWith('imagen');
}

export function encodeVertexImages(_req: CanonicalRequest, task: ImageTask, endpoint: Endpoint): UpstreamTaskRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.provider.headers !== undefined) Object.assign(headers, endpoint.provider.headers);
  if (!isImagen(endpoint))
    return { url: vertexModelUrl(endpoint, 'google', 'generateContent'), headers, body: JSON.stringify(geminiImageBody(task, endpoint)) };
  const refuse = (param: string, rule: string): never => {
    throw invalidParameter(param, `Invalid '${param}' for ${endpoint.upstreamModel}: ${rule}.`);
  };
  if (task.operation === 'edit') refuse('model', 'Imagen is served for generations only here');
  if (task.n > IMAGEN_MAX_N) refuse('n', `Imagen makes at most ${IMAGEN_MAX_N} images a request`);
  if (task.outputFormat === 'webp') refuse('output_format', 'Imagen answers png or jpeg');
  if (task.background === 'transparent') refuse('background', 'Imagen makes no transparent images');
  const parameters: Record<string, unknown> = { sampleCount: task.n };
  if (task.size !== undefined && task.size !== 'auto') parameters.aspectRatio = nearestRatio(task.size, IMAGEN_RATIOS);
  if (task.outputFormat !== undefined) {
    const outputOptions: Record<string, unknown> = { mimeType: `image/${task.outputFormat}` };
    if (task.outputCompression !== undefined && task.outputFormat === 'jpeg') outputOptions.compressionQuality = task.outputCompression;
    parameters.outputOptions = outputOptions;
  }
  return {
    url: vertexModelUrl(endpoint, 'google', 'predict'),
    headers,
    body: JSON.stringify({ instances: [{ prompt: task.prompt }], parameters }),
  };
}

interface ImagenAnswer {
  predictions?: { bytesBase64Encoded?: unknown; mimeType?: unknown; raiFilteredReason?: unknown }[];
}

export function decodeVertexImages(task: ImageTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  if (!isImagen(endpoint)) return decodeGeminiImages(task, body, endpoint, emit);
  const answer = parseTaskJson<ImagenAnswer>(body, endpoint, emit);
  if (answer === null) return;
  const images: ImageResult['images'] = [];
  let mimeType = 'image/png';
  let filtered: string | undefined;
  for (const p of Array.isArray(answer.predictions) ? answer.predictions : []) {
    if (typeof p?.bytesBase64Encoded === 'string' && p.bytesBase64Encoded.length > 0) {
      images.push({ b64: p.bytesBase64Encoded });
      if (typeof p.mimeType === 'string') mimeType = p.mimeType;
    } else if (typeof p?.raiFilteredReason === 'string') {
      filtered = p.raiFilteredReason;
    }
  }
  if (images.length === 0 || images.length > task.n) {
    return emit(
      malformedTaskAnswer(
        endpoint,
        `Imagen answered ${images.length} images for ${task.n} asked${filtered === undefined ? '' : ` (filtered: ${filtered.slice(0, 200)})`}`,
      ),
    );
  }
  // Imagen reports no usage: it bills per image (image_output).
  emit({ type: 'task-result', result: { kind: 'image', images, outputFormat: mimeType.slice(6) } });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
