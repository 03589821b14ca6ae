import { formatAttos } from '../money/money.ts';
import type { Capability, Endpoint, ModelInfo, ModelKind } from './types.ts';

/**
 * The spec's Model record, with the fields OpenAI's model object has (`object`, `created`,
 * `owned_by`: OpenAI-compatible UIs read them) and the extra ones OpenRouter's /models
 * clients read. The one serializer of a model: `GET /v1/models` and `/api/v1/models`, and
 * `switchyard config check --json`.
 */
export interface ModelRecord {
  id: string;
  /** What the model produces: `chat`, `embedding`, `image`, `speech` or `transcription`. */
  kind: ModelKind;
  object: 'model';
  /** Unix seconds, as OpenAI's `created`. */
  created: number;
  /** OpenAI's name for the model's author: the same as `provider`. */
  owned_by: string;
  name: string;
  /** The model's author (the part of the id before the slash). */
  provider: string;
  description: string;
  context_length: number;
  pricing: ModelRecordPricing;
  capabilities: Capability[];
  architecture: { modality: string; input_modalities: string[]; output_modalities: string[] };
  top_provider: { context_length: number; max_completion_tokens: number | null };
  supported_parameters: string[];
}

/** USD per token (per request / per image) as decimal strings; optional ones only when they apply. */
export interface ModelRecordPricing {
  prompt: string;
  completion: string;
  request?: string;
  image?: string;
  input_cache_read?: string;
  input_cache_write?: string;
  /** Per image generated. */
  image_output?: string;
  /** Per character synthesized. */
  character?: string;
  /** Per second of audio transcribed. */
  audio_second?: string;
}

/**
 * Encodes a model for `GET /v1/models`. Prices and `top_provider` are those of the cheapest
 * endpoint (the default routing preference); `supported_parameters` is the union over
 * endpoints, since routing can reach any of them.
 */
export function toModelRecord(model: ModelInfo): ModelRecord {
  const top = cheapestEndpoint(model.endpoints);
  const supported = new Set<string>();
  for (const ep of model.endpoints) for (const p of ep.supportedParameters) supported.add(p);
  return {
    id: model.id,
    kind: model.kind,
    object: 'model',
    created: model.created,
    owned_by: model.author,
    name: model.name,
    provider: model.author,
    description: model.description,
    context_length: model.contextLength,
    pricing: encodePricing(top),
    capabilities: model.capabilities,
    architecture: encodeArchitecture(model.kind, model.capabilities),
    top_provider: { context_length: top.contextLength, max_completion_tokens: top.maxOutputTokens ?? null },
    supported_parameters: [...supported].sort(),
  };
}

/**
 * One endpoint of a model as the catalog describes it, in OpenRouter's shape (what
 * `GET /v1/models/{author}/{slug}/endpoints` adds its live health to, and what
 * `switchyard config check --json` lists).
 */
export function toEndpointRecord(model: ModelInfo, ep: Endpoint): Record<string, unknown> {
  return {
    name: `${ep.provider.name}: ${model.name}`,
    model_id: model.id,
    model_name: model.name,
    // The slugs `provider.order`, `only` and `ignore` accept: `tag` names the provider (all
    // its endpoints), `endpoint_id` this endpoint alone.
    tag: ep.provider.id,
    endpoint_id: ep.id,
    provider_name: ep.provider.name,
    context_length: ep.contextLength,
    max_prompt_tokens: ep.contextLength,
    max_completion_tokens: ep.maxOutputTokens ?? null,
    quantization: ep.quantization ?? null,
    pricing: encodePricing(ep),
    supported_parameters: [...ep.supportedParameters].sort(),
    supports_implicit_caching: ep.provider.cacheFamily === 'prompt_cache_key',
    data_collection: ep.dataCollection,
    zdr: ep.zdr,
  };
}

function cheapestEndpoint(endpoints: readonly Endpoint[]): Endpoint {
  let best = endpoints[0];
  if (best === undefined) throw new Error('a catalog model always has an endpoint');
  for (const ep of endpoints) if (listCost(ep) < listCost(best)) best = ep;
  return best;
}

function listCost(ep: Endpoint): bigint {
  return ep.compiledPricing.prompt + ep.compiledPricing.completion;
}

function encodePricing(ep: Endpoint): ModelRecordPricing {
  const p = ep.compiledPricing;
  const out: ModelRecordPricing = { prompt: formatAttos(p.prompt), completion: formatAttos(p.completion) };
  if (p.request !== 0n) out.request = formatAttos(p.request);
  if (p.image !== 0n) out.image = formatAttos(p.image);
  // Cache prices are worth a field only where caching changes the price.
  if (p.cacheRead !== p.prompt) out.input_cache_read = formatAttos(p.cacheRead);
  if (p.cacheWrite !== p.prompt) out.input_cache_write = formatAttos(p.cacheWrite);
  if (p.imageOutput !== 0n) out.image_output = formatAttos(p.imageOutput);
  if (p.character !== 0n) out.character = formatAttos(p.character);
  if (p.audioSecond !== 0n) out.audio_second = formatAttos(p.audioSecond);
  return out;
}

/** OpenRouter's modality names: `text`, `image`, `audio`, `file`, and `embeddings` for embedding models. */
function encodeArchitecture(kind: ModelKind, capabilities: readonly Capability[]): ModelRecord['architecture'] {
  switch (kind) {
    case 'chat':
      return chatArchitecture(capabilities);
    case 'embedding':
      return architecture(['text'], ['embeddings']);
    case 'image':
      return architecture(capabilities.includes('multimodal') ? ['text', 'image'] : ['text'], ['image']);
    case 'speech':
      return architecture(['text'], ['audio']);
    case 'transcription':
      return architecture(['audio'], ['text']);
  }
}

function architecture(input: string[], output: string[]): ModelRecord['architecture'] {
  return { modality: `${input.join('+')}->${output.join('+')}`, input_modalities: input, output_modalities: output };
}

function chatArchitecture(capabilities: readonly Capability[]): ModelRecord['architecture'] {
  const has = (c: Capability): boolean => capabilities.includes(c);
  const input = ['text'];
  if (has('multimodal')) input.push('image');
  if (has('pdf_input')) input.push('file');
  if (has('audio_input')) input.push('audio');
  const output = ['text'];
  if (has('image_output')) output.push('image');
  if (has('audio_output')) output.push('audio');
  return architecture(input, output);
}
