import type { RequestParameter } from '../../canonical/request.ts';
import type { Endpoint, ProviderConfig } from '../../catalog/types.ts';
import { anthropicAdapter } from '../anthropic/anthropic-adapter.ts';
import { googleAdapter } from '../google/google-adapter.ts';
import type { HttpProviderAdapter } from '../types.ts';
import { convertToVertexAnthropicRequest } from './convert-to-vertex-anthropic-request.ts';
import { convertToVertexGeminiRequest } from './convert-to-vertex-gemini-request.ts';
import { authorizeVertexRequest } from './vertex-access-token.ts';
import { vertexTaskCodec } from './vertex-task-codec.ts';

/**
 * Google Vertex AI: a provider serves one publisher's models, named by its `profile`:
 * `google` (default; Gemini, through the google adapter's conversions) or `anthropic`
 * (Claude, through the anthropic adapter's). Only the URLs, the body's envelope and the
 * credentials (an OAuth bearer token) are Vertex's own; answers, streams and errors are
 * the publisher's wire, decoded by its adapter.
 */
function publisherOf(provider: ProviderConfig): HttpProviderAdapter {
  return provider.profile === 'anthropic' ? anthropicAdapter : googleAdapter;
}

/**
 * Gemini on Vertex takes what the Gemini API takes, less the penalties, which Gemini 2.5
 * refuses ("Penalty is not enabled"), as the built-in `google` provider leaves them out.
 */
const VERTEX_GEMINI_PARAMETERS: ReadonlySet<RequestParameter> = new Set<RequestParameter>(
  [...googleAdapter.supportedParameters].filter((p) => p !== 'presence_penalty' && p !== 'frequency_penalty'),
);

function publisher(endpoint: Endpoint): HttpProviderAdapter {
  return publisherOf(endpoint.provider);
}

export const vertexAdapter: HttpProviderAdapter = {
  kind: 'vertex',
  transport: 'http',
  supportedParameters: new Set([...googleAdapter.supportedParameters, ...anthropicAdapter.supportedParameters]),
  /** Both publishers read PDFs (Gemini's `inlineData`, Claude's `document`). */
  readsPdf: () => true,
  supportedParametersFor(provider) {
    return provider.profile === 'anthropic' ? anthropicAdapter.supportedParameters : VERTEX_GEMINI_PARAMETERS;
  },
  encodeRequest(req, endpoint) {
    return endpoint.provider.profile === 'anthropic'
      ? convertToVertexAnthropicRequest(req, endpoint)
      : convertToVertexGeminiRequest(req, endpoint);
  },
  authorize: authorizeVertexRequest,
  decodeResponse(body, endpoint, emit) {
    publisher(endpoint).decodeResponse(body, endpoint, emit);
  },
  createStreamDecoder(endpoint, emit) {
    return publisher(endpoint).createStreamDecoder(endpoint, emit);
  },
  decodeError(status, body, headers, endpoint) {
    return publisher(endpoint).decodeError(status, body, headers, endpoint);
  },
  tasks: vertexTaskCodec,
};
