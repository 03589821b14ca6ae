import type { ModelKind } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskCodec } from '../types.ts';
import { decodeVertexImages, encodeVertexImages } from './vertex-images.ts';

const GOOGLE_KINDS: ReadonlySet<ModelKind> = new Set(['image']);
const NONE: ReadonlySet<ModelKind> = new Set();

/** Vertex AI's task endpoints for the google publisher: images (Imagen's :predict, Gemini's generateContent). */
export const vertexTaskCodec: TaskCodec = {
  kindsFor(provider) {
    return provider.profile === 'anthropic' ? NONE : GOOGLE_KINDS;
  },
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'image':
        return encodeVertexImages(req, task, endpoint);
      default:
        throw new GatewayError('provider_error', `The Vertex adapter does not carry ${task.kind} requests yet.`);
    }
  },
  decode(task, body, _headers, endpoint, emit) {
    switch (task.kind) {
      case 'image':
        return decodeVertexImages(task, body, endpoint, emit);
      default:
        throw new GatewayError('provider_error', `The Vertex adapter does not carry ${task.kind} requests yet.`);
    }
  },
};
