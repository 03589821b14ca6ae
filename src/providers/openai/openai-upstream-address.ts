import type { Endpoint } from '../../catalog/types.ts';
import type { OpenAIProfile } from './openai-profiles.ts';
import { AZURE_DEFAULT_API_VERSION } from './profiles/azure-profile.ts';

/**
 * Where an OpenAI-compatible call goes: `{base}/{path}` (`chat/completions`, `embeddings`,
 * `audio/speech`, ...), or for Azure `{base}/openai/deployments/{upstream model}/{path}?api-version=…`.
 */
export function openAIUpstreamUrl(profile: OpenAIProfile, endpoint: Endpoint, path: string): string {
  const base = stripTrailingSlash(endpoint.provider.baseUrl);
  if (profile.route === 'chat') return `${base}/${path}`;
  const version = endpoint.provider.options?.api_version;
  const apiVersion = typeof version === 'string' && version.length > 0 ? version : AZURE_DEFAULT_API_VERSION;
  return `${base}/openai/deployments/${encodeURIComponent(endpoint.upstreamModel)}/${path}?api-version=${encodeURIComponent(apiVersion)}`;
}

/** The credential (bearer or Azure's `api-key`) and the operator's headers; `contentType` null for multipart (undici sets it with the boundary). */
export function openAIUpstreamHeaders(profile: OpenAIProfile, endpoint: Endpoint, contentType: string | null): Record<string, string> {
  const provider = endpoint.provider;
  const headers: Record<string, string> = contentType === null ? {} : { 'content-type': contentType };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) {
    if (profile.auth === 'api-key') headers['api-key'] = provider.apiKey;
    else headers.authorization = `Bearer ${provider.apiKey}`;
  }
  // Operator headers last, so a server needing yet another auth header can set it.
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  return headers;
}

function stripTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === url.length ? url : url.slice(0, end);
}
