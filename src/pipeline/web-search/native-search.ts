import type { Endpoint } from '../../catalog/types.ts';
import { extraCostOf } from '../../config/unpriced-options.ts';
import { openAIProfileFor } from '../../providers/openai/openai-profiles.ts';
import type { NativeSearchField } from './web-search-ask.ts';

/**
 * Whether the endpoint searches itself given `field`: its provider's profile passes the
 * field through (OpenAI's and OpenRouter's `web_search_options`, OpenRouter's `plugins`,
 * xAI's `search_parameters`) and, for a field billed upstream, its operator enabled it
 * (`unpriced_options`). Such a search is the provider's, billed by it, as before.
 */
export function searchesNatively(endpoint: Endpoint, field: NativeSearchField, value: unknown): boolean {
  const provider = endpoint.provider;
  if (provider.kind !== 'openai' || !openAIProfileFor(provider).passThrough.has(field)) return false;
  return extraCostOf(field, value) === null || provider.unpricedOptions?.has(field) === true;
}
