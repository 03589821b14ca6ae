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

/** The methods of a model that generates (an embedding model would list `embedContent`). */
export const GENERATION_METHODS: readonly string[] = ['generateContent', 'streamGenerateContent', 'countTokens'];

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
    supportedGenerationMethods: [...GENERATION_METHODS],
  };
  if (model.capabilities.includes('reasoning')) out.thinking = true;
  return out;
}
