import type { ModelInfo } from '../../catalog/types.ts';

// The catalog in Google's model-list shape (GET /v1beta/models): `name` is `models/<id>`
// (the catalog id, its slash kept), `displayName`, `description`, the token limits (the
// largest context and output among the model's endpoints, as routing may reach any) and
// the methods this gateway serves for it.

export interface GeminiModel {
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  description: string;
  inputTokenLimit: number;
  outputTokenLimit: number;
  supportedGenerationMethods: string[];
  thinking?: boolean;
}

/** The methods of a model that generates. */
export const GENERATION_METHODS: readonly string[] = ['generateContent', 'streamGenerateContent', 'countTokens'];
/** The methods of an embedding model. */
export const EMBEDDING_METHODS: readonly string[] = ['embedContent', 'batchEmbedContents'];

export function encodeGeminiModel(model: ModelInfo): GeminiModel {
  let input = model.contextLength;
  let output = 0;
  for (const ep of model.endpoints) {
    if (ep.contextLength > input) input = ep.contextLength;
    if (ep.maxOutputTokens !== undefined && ep.maxOutputTokens > output) output = ep.maxOutputTokens;
  }
  const out: GeminiModel = {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: String(model.created),
    displayName: model.name,
    description: model.description,
    inputTokenLimit: input,
    outputTokenLimit: output > 0 ? output : input,
    supportedGenerationMethods: methodsOf(model),
  };
  if (model.capabilities.includes('reasoning')) out.thinking = true;
  return out;
}

/** Generation methods for chat models, embedding methods for embedding models; image and audio models have none here. */
function methodsOf(model: ModelInfo): string[] {
  if (model.kind === 'chat') return [...GENERATION_METHODS];
  if (model.kind === 'embedding') return [...EMBEDDING_METHODS];
  return [];
}
