import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { buildAnthropicBody, INTERLEAVED_THINKING_BETA, usesInterleavedThinking } from '../anthropic/convert-to-anthropic-request.ts';
import type { UpstreamRequest } from '../types.ts';
import { vertexModelUrl } from './vertex-urls.ts';

/** The Messages API version Vertex AI takes, in the body rather than a header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

// Claude on Vertex AI: the Messages body (the anthropic adapter's conversion) without
// `model` (the URL names it) and with `anthropic_version`, to
// `…/publishers/anthropic/models/{model}:rawPredict`, or `:streamRawPredict` for a stream
// (`stream: true` stays in the body). Betas travel in `anthropic-beta` as at Anthropic.

export function convertToVertexAnthropicRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const provider = endpoint.provider;
  const built = buildAnthropicBody(req, endpoint);
  const { model: _model, ...rest } = built;
  const body = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const operatorBeta = provider.headers?.['anthropic-beta'];
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  if (usesInterleavedThinking(built)) {
    headers['anthropic-beta'] =
      operatorBeta === undefined || operatorBeta === '' ? INTERLEAVED_THINKING_BETA : `${operatorBeta},${INTERLEAVED_THINKING_BETA}`;
  }
  const method = req.stream ? 'streamRawPredict' : 'rawPredict';
  return { url: vertexModelUrl(endpoint, 'anthropic', method), headers, body: JSON.stringify(body) };
}
