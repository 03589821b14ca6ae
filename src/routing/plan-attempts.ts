import type { Catalog } from '../catalog/catalog.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { PlannedAttempt } from './attempt.ts';

/**
 * Turns the request's model list into an ordered list of attempts: for each model in
 * order, its endpoints from cheapest to dearest. (Preferences, health and the weighted
 * draw are the routing issue's; this is the minimal deterministic planner.)
 */
export function planAttempts(req: CanonicalRequest, catalog: Catalog): PlannedAttempt[] {
  const attempts: PlannedAttempt[] = [];
  for (const choice of req.models) {
    const resolved = catalog.resolve(choice.model);
    if (resolved === undefined) {
      throw new GatewayError('model_not_found', `Model "${choice.model}" is not a valid model ID or is not available.`, {
        param: 'model',
      });
    }
    const endpoints = [...resolved.model.endpoints].sort(
      (a, b) => cmp(a.compiledPricing.prompt + a.compiledPricing.completion, b.compiledPricing.prompt + b.compiledPricing.completion),
    );
    for (const endpoint of endpoints) attempts.push({ model: resolved.model, endpoint });
  }
  if (attempts.length === 0) {
    throw new GatewayError('no_provider_available', 'No provider endpoint is available for the requested model.', {
      metadata: { models: req.models.map((m) => m.model) },
    });
  }
  return attempts;
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
