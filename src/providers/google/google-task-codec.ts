import type { ModelKind } from '../../canonical/task.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { TaskCodec } from '../types.ts';
import { decodeGeminiImages, encodeGeminiImages } from './gemini-images.ts';

const KINDS: ReadonlySet<ModelKind> = new Set(['image']);

/** Gemini's task endpoints: images (generateContent with an IMAGE response modality). */
export const googleTaskCodec: TaskCodec = {
  kindsFor() {
    return KINDS;
  },
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'image':
        return encodeGeminiImages(req, task, endpoint);
      default:
        throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests yet.`);
    }
  },
  decode(task, body, _headers, endpoint, emit) {
    switch (task.kind) {
      case 'image':
        return decodeGeminiImages(task, body, endpoint, emit);
      default:
        throw new GatewayError('provider_error', `The Gemini adapter does not carry ${task.kind} requests yet.`);
    }
  },
};
