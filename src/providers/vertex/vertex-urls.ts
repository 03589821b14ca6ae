import type { Endpoint } from '../../catalog/types.ts';

/**
 * `{base}/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`:
 * a Vertex AI model's method. The base is `https://{region}-aiplatform.googleapis.com`
 * (`https://aiplatform.googleapis.com` for the `global` region), or the config's `base_url`.
 */
export function vertexModelUrl(endpoint: Endpoint, publisher: 'google' | 'anthropic', method: string): string {
  const p = endpoint.provider;
  const base = p.baseUrl.replace(/\/+$/, '');
  const model = encodeURIComponent(endpoint.upstreamModel);
  return `${base}/v1/projects/${p.project ?? ''}/locations/${p.region ?? 'global'}/publishers/${publisher}/models/${model}:${method}`;
}
