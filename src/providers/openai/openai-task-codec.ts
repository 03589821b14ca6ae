import type { TaskCodec } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { decodeOpenAIEmbeddings, encodeOpenAIEmbeddings } from './openai-embeddings.ts';
import { decodeOpenAIImages, encodeOpenAIImages } from './openai-images.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { embeddingInputLimit, OPENAI_MAX_INPUTS } from '../tasks/embedding-limits.ts';

/** OpenAI's task endpoints (embeddings, images, audio), for the vendors whose profile serves them. */
export const openAITaskCodec: TaskCodec = {
  kindsFor(provider) {
    return openAIProfileFor(provider).tasks;
  },
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'embedding':
        return encodeOpenAIEmbeddings(req, task, endpoint);
      case 'image':
        return encodeOpenAIImages(req, task, endpoint);
      default:
        throw new GatewayError('provider_error', `The OpenAI-compatible adapter does not carry ${task.kind} requests yet.`);
    }
  },
  maxInputs(_task, endpoint) {
    return embeddingInputLimit(endpoint, OPENAI_MAX_INPUTS);
  },
  decode(task, body, _headers, endpoint, emit) {
    switch (task.kind) {
      case 'embedding':
        return decodeOpenAIEmbeddings(task, body, endpoint, emit);
      case 'image':
        return decodeOpenAIImages(task, body, endpoint, emit);
      default:
        throw new GatewayError('provider_error', `The OpenAI-compatible adapter does not carry ${task.kind} requests yet.`);
    }
  },
};
