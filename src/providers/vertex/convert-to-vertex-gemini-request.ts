import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { buildGeminiBody } from '../google/convert-to-gemini-request.ts';
import type { UpstreamRequest } from '../types.ts';
import { vertexModelUrl } from './vertex-urls.ts';

// Gemini on Vertex AI: the Gemini API's body (the google adapter's conversion, unchanged)
// to `…/publishers/google/models/{model}:generateContent` or `:streamGenerateContent?alt=sse`.
// The bearer token is added by `authorize`.

export function convertToVertexGeminiRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.provider.headers !== undefined) Object.assign(headers, endpoint.provider.headers);
  const method = req.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { url: vertexModelUrl(endpoint, 'google', method), headers, body: JSON.stringify(buildGeminiBody(req, endpoint)) };
}
