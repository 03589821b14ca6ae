import type { ModelKind } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskCodec } from '../types.ts';
import { embeddingInputLimit, VERTEX_MAX_INPUTS } from '../tasks/embedding-limits.ts';
import { decodeVertexEmbeddings, encodeVertexEmbeddings } from './vertex-embeddings.ts';
import { decodeVertexImages, encodeVertexImages } from './vertex-images.ts';

const GOOGLE_KINDS: ReadonlySet<ModelKind> = new Set(['embedding', 'image']);
const NONE: ReadonlySet<ModelKind> = new Set();

/**
 * Vertex AI's task endpoints for the google publisher: embeddings (`:predict`) and images
 * (Imagen's `:predict`, Gemini's generateContent). The anthropic publisher serves none.
 */
export const vertexTaskCodec: TaskCodec = {
  kindsFor(provider) {
    return provider.profile === 'anthropic' ? NONE : GOOGLE_KINDS;
  },
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'embedding':
        return encodeVertexEmbeddings(req, task, endpoint);
      case 'image':
        return encodeVertexImages(req, task, endpoint);
      default:
        throw new GatewayError('provider_error', `The Vertex adapter does not carry ${task.kind} requests.`);
    }
  },
  // gemini-embedding-001 takes one input per call on Vertex; the text-embedding models 250.
  maxInputs: (_task, endpoint) =>
    embeddingInputLimit(endpoint, endpoint.upstreamModel.includes('gemini-embedding') ? 1 : VERTEX_MAX_INPUTS),
  decode(task, body, _headers, endpoint, emit) {
    switch (task.kind) {
      case 'embedding':
        return decodeVertexEmbeddings(task, body, endpoint, emit);
      case 'image':
        return decodeVertexImages(task, body, endpoint, emit);
      default:
        throw new GatewayError('provider_error', `The Vertex adapter does not carry ${task.kind} requests.`);
    }
  },
};
