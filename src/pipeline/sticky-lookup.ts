import type { Catalog } from '../catalog/catalog.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { mayUsePromptCache } from '../routing/sticky/prompt-cache-keys.ts';
import type { StickyLookup, StickyRouting } from '../routing/sticky/sticky-routing.ts';

/**
 * The endpoint remembered for this conversation's prompt cache, keyed by the primary model.
 * `find` false (no model of this request's plan has a choice of endpoints left, or each
 * has an explicit order): the keys only, so that the turn is still remembered. Null at once
 * (no promise) when there is nothing to look up.
 */
export function stickyLookup(
  sticky: StickyRouting | undefined,
  catalog: Catalog,
  accountId: string,
  req: CanonicalRequest,
  promptTokens: number,
  find: boolean,
): Promise<StickyLookup> | null {
  // Task requests (embeddings, images, audio) have no prompt cache to stick to.
  if (sticky === undefined || req.task !== undefined) return null;
  // Too short for any provider to cache, and not asking for caching: nothing to find or remember.
  if (!mayUsePromptCache(req, promptTokens)) return null;
  const first = req.models[0];
  const model = first === undefined ? undefined : catalog.resolve(first.model)?.model;
  // Unknown: the planner refuses it. One endpoint: there is no choice to make.
  if (model === undefined || model.endpoints.length < 2) return null;
  return sticky.lookup(accountId, model.id, req, find);
}
