import type { Endpoint } from '../../catalog/types.ts';

/**
 * The request's headers with the pooled credential `key` in place of the provider's first
 * key, which the adapter wrote (`authorization: Bearer …`, `api-key`, `x-api-key`,
 * `x-goog-api-key`). The adapters and their per-endpoint header caches stay as they are:
 * only this attempt's copy of the headers changes.
 */
export function swapCredential(headers: Record<string, string>, endpoint: Endpoint, key: string): Record<string, string> {
  const written = endpoint.provider.apiKey;
  if (written === undefined || written === key) return headers;
  const bearer = `Bearer ${written}`;
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name]!;
    out[name] = value === written ? key : value === bearer ? `Bearer ${key}` : value;
  }
  return out;
}
