import type { ModelKind } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskCodec } from '../types.ts';
import { embeddingInputLimit, GEMINI_MAX_INPUTS } from '../tasks/embedding-limits.ts';
import { decodeGeminiEmbeddings, encodeGeminiEmbeddings } from './gemini-embeddings.ts';

const KINDS: ReadonlySet<ModelKind> = new Set(['embedding']);

/** The Gemini API's task endpoints: embeddings (`batchEmbedContents`). */
export const geminiTaskCodec: TaskCodec = {
  kindsFor: () => KINDS,
  encode(req, task, endpoint) {
    if (task.kind === 'embedding') return encodeGeminiEmbeddings(req, task, endpoint);
    throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests.`);
  },
  maxInputs: (_task, endpoint) => embeddingInputLimit(endpoint, GEMINI_MAX_INPUTS),
  decode(task, body, _headers, endpoint, emit) {
    if (task.kind === 'embedding') return decodeGeminiEmbeddings(task, body, endpoint, emit);
    throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests.`);
  },
};
