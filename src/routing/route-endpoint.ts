import type { Endpoint, ModelInfo } from '../catalog/types.ts';

/** What routing needs to know of an endpoint, computed once at boot. */
export interface RouteEndpoint {
  readonly endpoint: Endpoint;
  /** The provider id, lower-cased: matches every endpoint of that provider (`order`, `only`, `ignore`). */
  readonly providerSlug: string;
  /** The endpoint id (`<provider>/<upstream model>`), lower-cased: matches this endpoint alone. */
  readonly endpointSlug: string;
  /** Lower-cased; `unknown` when the catalog does not say. */
  readonly quantization: string;
  /** Prompt + completion price per token, atto-USD: what "cheaper" means in routing. */
  readonly listPrice: bigint;
  /** 1 / price² with the price in USD per million tokens; Infinity for a free endpoint. */
  readonly weight: number;
  /** Position in the model's endpoint list: the last tie-break, so orders are stable. */
  readonly index: number;
}

const ATTOS_PER_USD_PER_MILLION = 1e12;

export function buildRouteEndpoints(model: ModelInfo): RouteEndpoint[] {
  return model.endpoints.map((endpoint, index) => {
    const listPrice = endpoint.compiledPricing.prompt + endpoint.compiledPricing.completion;
    const perMillion = Number(listPrice) / ATTOS_PER_USD_PER_MILLION;
    return {
      endpoint,
      providerSlug: endpoint.provider.id.toLowerCase(),
      endpointSlug: endpoint.id.toLowerCase(),
      quantization: (endpoint.quantization ?? 'unknown').toLowerCase(),
      listPrice,
      weight: perMillion === 0 ? Infinity : 1 / (perMillion * perMillion),
      index,
    };
  });
}

/** A provider slug from a request (already lower-cased) names this endpoint: its provider, or the endpoint itself. */
export function slugMatches(route: RouteEndpoint, slug: string): boolean {
  return slug === route.providerSlug || slug === route.endpointSlug;
}

export function matchesAny(route: RouteEndpoint, slugs: readonly string[]): boolean {
  for (const slug of slugs) if (slugMatches(route, slug)) return true;
  return false;
}
