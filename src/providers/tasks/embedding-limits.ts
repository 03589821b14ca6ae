import type { Endpoint } from '../../catalog/types.ts';

// How many embedding inputs one upstream call takes, per vendor (docs/embeddings.md). A
// request with more is sent in parts and joined (providers/http/call-upstream-task.ts). A
// provider's `options.max_embedding_inputs` lowers the vendor's limit (a self-hosted server
// with a small batch size, an account whose quota counts inputs per call); it never raises it.

/** OpenAI's `/embeddings`: 2,048 inputs per call. */
export const OPENAI_MAX_INPUTS = 2048;
/** Gemini's `batchEmbedContents`: 100 requests per call. */
export const GEMINI_MAX_INPUTS = 100;
/** Vertex's `:predict` for text-embedding models: 250 instances (gemini-embedding models: one). */
export const VERTEX_MAX_INPUTS = 250;
/** Bedrock: Titan Text Embeddings takes one `inputText`, Cohere Embed 96 `texts`. */
export const TITAN_MAX_INPUTS = 1;
export const COHERE_MAX_INPUTS = 96;

/** The vendor's limit, lowered by the provider's `options.max_embedding_inputs` when set. */
export function embeddingInputLimit(endpoint: Endpoint, vendorMax: number): number {
  const configured = endpoint.provider.options?.max_embedding_inputs;
  return typeof configured === 'number' && Number.isInteger(configured) && configured >= 1 ? Math.min(configured, vendorMax) : vendorMax;
}
