import { FormData } from 'undici';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { ImageResult, ImageTask, TaskFile } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { openAIUpstreamHeaders, openAIUpstreamUrl } from './openai-upstream-address.ts';
import { malformedTaskAnswer, parseTaskJson, taskUsage } from '../tasks/task-answers.ts';
import { checkImageTask, imageFamily } from './openai-image-families.ts';

// OpenAI's `POST /images/generations` (JSON) and `/images/edits` (multipart), spoken by
// every OpenAI-compatible image server. Images are always asked for as base64 (the GPT image
// models send nothing else; dall-e and other servers are told `b64_json`): the gateway keeps
// them itself when the client asks for URLs, so one answer shape comes back from every vendor.

export function encodeOpenAIImages(req: CanonicalRequest, task: ImageTask, endpoint: Endpoint): UpstreamTaskRequest {
  const profile = openAIProfileFor(endpoint.provider);
  const family = imageFamily(endpoint.upstreamModel);
  checkImageTask(task, family, endpoint.upstreamModel);
  const fields: [string, string][] = [
    ['model', endpoint.upstreamModel],
    ['prompt', task.prompt],
  ];
  const add = (name: string, value: string | number | undefined): void => {
    if (value !== undefined) fields.push([name, String(value)]);
  };
  add('n', task.n);
  // `auto` is the GPT image models' word; the others take their default when it is omitted.
  add('size', task.size === 'auto' && family !== 'gpt-image' ? undefined : task.size);
  add('quality', task.quality === 'auto' && family !== 'gpt-image' ? undefined : task.quality);
  if (family !== 'gpt-image') add('response_format', 'b64_json');
  add('output_format', task.outputFormat);
  add('output_compression', task.outputCompression);
  add('background', task.background);
  add('style', task.style);
  add('moderation', task.moderation);
  add('input_fidelity', task.inputFidelity);
  add('user', req.user);
  if (task.operation === 'generate') {
    const body: Record<string, unknown> = {};
    for (const [name, value] of fields) body[name] = name === 'n' || name === 'output_compression' ? Number(value) : value;
    return {
      url: openAIUpstreamUrl(profile, endpoint, 'images/generations'),
      headers: openAIUpstreamHeaders(profile, endpoint, 'application/json'),
      body: JSON.stringify(body),
    };
  }
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  const images = task.images ?? [];
  // One image as `image`, several as `image[]`, as OpenAI's SDKs send them.
  for (const image of images) form.append(images.length === 1 ? 'image' : 'image[]', asFile(image));
  if (task.mask !== undefined) form.append('mask', asFile(task.mask));
  return {
    url: openAIUpstreamUrl(profile, endpoint, 'images/edits'),
    headers: openAIUpstreamHeaders(profile, endpoint, null),
    body: form,
  };
}

function asFile(file: TaskFile): File {
  return new File([new Uint8Array(file.data)], file.filename, { type: file.contentType });
}

interface OpenAIImagesAnswer {
  data?: { b64_json?: unknown; url?: unknown; revised_prompt?: unknown }[];
  usage?: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { image_tokens?: number; text_tokens?: number } };
  output_format?: unknown;
  size?: unknown;
  quality?: unknown;
  background?: unknown;
}

export function decodeOpenAIImages(task: ImageTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const answer = parseTaskJson<OpenAIImagesAnswer>(body, endpoint, emit);
  if (answer === null) return;
  const data = answer.data;
  if (!Array.isArray(data) || data.length === 0 || data.length > task.n) {
    return emit(malformedTaskAnswer(endpoint, `expected 1 to ${task.n} images, got ${Array.isArray(data) ? data.length : 'none'}`));
  }
  const images: ImageResult['images'] = [];
  for (let i = 0; i < data.length; i++) {
    const item = data[i]!;
    if (typeof item.b64_json !== 'string' || item.b64_json.length === 0) {
      return emit(malformedTaskAnswer(endpoint, `image ${i} has no b64_json (it was asked for as base64)`));
    }
    const image: ImageResult['images'][number] = { b64: item.b64_json };
    if (typeof item.revised_prompt === 'string') image.revisedPrompt = item.revised_prompt;
    images.push(image);
  }
  const result: ImageResult = {
    kind: 'image',
    images,
    outputFormat: typeof answer.output_format === 'string' ? answer.output_format : (task.outputFormat ?? 'png'),
  };
  if (typeof answer.size === 'string') result.size = answer.size;
  if (typeof answer.quality === 'string') result.quality = answer.quality;
  if (typeof answer.background === 'string') result.background = answer.background;
  // OpenAI's dall-e models answer URLs to a client that names no format.
  if (imageFamily(endpoint.upstreamModel).startsWith('dall-e')) result.defaultFormat = 'url';
  emit({ type: 'task-result', result });
  const usage = answer.usage;
  if (usage !== undefined && typeof usage.input_tokens === 'number') {
    const canonical = taskUsage(usage.input_tokens, typeof usage.output_tokens === 'number' ? usage.output_tokens : 0, usage);
    const imageTokens = usage.input_tokens_details?.image_tokens;
    if (typeof imageTokens === 'number' && imageTokens > 0) canonical.imageInputTokens = imageTokens;
    emit({ type: 'usage', usage: canonical });
  }
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
