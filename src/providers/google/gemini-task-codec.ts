import type { ModelKind } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskCodec } from '../types.ts';
import { embeddingInputLimit, GEMINI_MAX_INPUTS } from '../tasks/embedding-limits.ts';
import { decodeGeminiEmbeddings, encodeGeminiEmbeddings } from './gemini-embeddings.ts';
import { decodeGeminiImages, encodeGeminiImages } from './gemini-images.ts';

const KINDS: ReadonlySet<ModelKind> = new Set(['embedding', 'image']);

/** The Gemini API's task endpoints: embeddings (`batchEmbedContents`) and images (generateContent with an IMAGE response modality). */
export const geminiTaskCodec: TaskCodec = {
  kindsFor: () => KINDS,
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'embedding':
        return encodeGeminiEmbeddings(req, task, endpoint);
      case 'image':
        return encodeGeminiImages(req, task, endpoint);
      default:
        throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests.`);
    }
  },
  maxInputs: (_task, endpoint) => embeddingInputLimit(endpoint, GEMINI_MAX_INPUTS),
  decode(task, body, _headers, endpoint, emit) {
    switch (task.kind) {
      case 'embedding':
        return decodeGeminiEmbeddings(task, body, endpoint, emit);
      case 'image':
        return decodeGeminiImages(task, body, endpoint, emit);
      default:
        throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests.`);
    }
  },
};
