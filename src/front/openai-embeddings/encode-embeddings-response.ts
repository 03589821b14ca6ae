import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { ResponseMeta } from '../front-dialect.ts';

export interface EmbeddingsAnswer {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number; cost?: number };
}

/** OpenAI's embeddings answer; base64 is the vector's little-endian float32 bytes, as OpenAI sends it. */
export function encodeEmbeddingsResponse(resp: CanonicalResponse, meta: ResponseMeta, req: CanonicalRequest): EmbeddingsAnswer {
  const vectors = resp.task?.kind === 'embedding' ? resp.task.vectors : [];
  const base64 = req.task?.kind === 'embedding' && req.task.encodingFormat === 'base64';
  const tokens = resp.usage?.input ?? 0;
  const usage: EmbeddingsAnswer['usage'] = { prompt_tokens: tokens, total_tokens: tokens };
  if (meta.cost !== undefined) usage.cost = meta.cost;
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(v) : v })),
    model: meta.model,
    usage,
  };
}

function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes.toString('base64');
}
