import type { CircuitBreakers } from './circuit-breaker.ts';
import type { CompiledPreferences } from './compile-preferences.ts';
import { missingParameters } from './request-parameters.ts';
import { matchesAny, type RouteEndpoint } from './route-endpoint.ts';

/** What the filters need to know of the request, computed once per request. */
export interface RequestFacts {
  /** Estimated prompt tokens that must fit the context (estimateContextTokens: an embedding request's longest input). */
  promptTokens: number;
  /** The requested `max_tokens`, or -1 when absent. */
  maxOutputTokens: number;
  /** Parameters the request uses (request-parameters.ts). */
  used: readonly string[];
  /** Of those, the ones an endpoint should support even without `require_parameters`. */
  preferred: readonly string[];
}

/** An endpoint that passed the filters, with what ordering needs. */
export interface Candidate {
  readonly route: RouteEndpoint;
  /**
   * 0 when the endpoint supports the request's tools / response format and has room for
   * its `max_tokens`; +2 when it lacks a preferred parameter, +1 when it lacks room.
   * Lower tiers are tried first.
   */
  tier: number;
  /** Ordering keys, filled by order-endpoints: 0 for endpoints named in `order`, 1 for the rest... */
  group: number;
  /** ...then the order rank, the sort figure, or 1 for a demoted endpoint... */
  key: number;
  /** ...then the sort figure among endpoints an `order` slug names alike. Price and catalog position break ties. */
  figure: number;
}

export interface Exclusion {
  model: string;
  endpoint: string;
  provider: string;
  reason: string;
}

/** Running totals over every model of the request, for telling a 400 from a 503. */
export interface FilterTally {
  /** Endpoints that met every preference (the context check and the circuit come after). */
  preferred: number;
  /** Of those, the ones whose context window is smaller than the prompt. */
  tooSmall: number;
  /** The largest context window among those too small. */
  largestTooSmall: number;
  /** The soonest an open circuit among the excluded may be probed (ms), or -1. */
  circuitRetryMs: number;
}

export function newTally(): FilterTally {
  return { preferred: 0, tooSmall: 0, largestTooSmall: 0, circuitRetryMs: -1 };
}

/**
 * Keeps the endpoints of one model that may serve the request, in catalog order, and
 * records why each other one may not. Preference filters first, then the context window
 * (the prompt alone must fit: an endpoint too small for the prompt would only refuse it),
 * then the circuit breaker.
 */
export function filterEndpoints(
  routes: readonly RouteEndpoint[],
  prefs: CompiledPreferences,
  facts: RequestFacts,
  breakers: CircuitBreakers,
  modelId: string,
  out: Candidate[],
  excluded: Exclusion[],
  tally: FilterTally,
): void {
  for (const route of routes) {
    const reason = preferenceReason(route, prefs, facts);
    if (reason !== null) {
      excluded.push(exclusion(modelId, route, reason));
      continue;
    }
    tally.preferred++;
    const ep = route.endpoint;
    if (facts.promptTokens > ep.contextLength) {
      tally.tooSmall++;
      if (ep.contextLength > tally.largestTooSmall) tally.largestTooSmall = ep.contextLength;
      excluded.push(exclusion(modelId, route, 'context_length'));
      continue;
    }
    if (breakers.state(ep.id) === 'open') {
      const wait = breakers.retryInMs(ep.id);
      if (tally.circuitRetryMs < 0 || wait < tally.circuitRetryMs) tally.circuitRetryMs = wait;
      excluded.push(exclusion(modelId, route, 'circuit open'));
      continue;
    }
    out.push({ route, tier: fitTier(route, facts), group: 1, key: 0, figure: 0 });
  }
}

function preferenceReason(route: RouteEndpoint, prefs: CompiledPreferences, facts: RequestFacts): string | null {
  const ep = route.endpoint;
  if (prefs.ignore !== null && matchesAny(route, prefs.ignore)) return 'ignored';
  if (prefs.only !== null && !matchesAny(route, prefs.only)) return 'not in only';
  if (!prefs.allowFallbacks && prefs.order !== null && !matchesAny(route, prefs.order)) return 'not in order (allow_fallbacks: false)';
  if (prefs.quantizations !== null && !prefs.quantizations.includes(route.quantization)) return 'quantization';
  if (prefs.denyDataCollection && ep.dataCollection !== 'deny') return 'data_collection';
  if (prefs.zdr && !ep.zdr) return 'zdr';
  if (overPrice(route, prefs)) return 'max_price';
  if (prefs.requireParameters) {
    const missing = missingParameters(facts.used, ep.supportedParameters);
    if (missing.length > 0) return `missing parameters: ${missing.join(', ')}`;
  }
  return null;
}

const PER_MILLION = 1_000_000n;

function overPrice(route: RouteEndpoint, prefs: CompiledPreferences): boolean {
  const p = route.endpoint.compiledPricing;
  if (prefs.maxPrompt >= 0n && p.prompt * PER_MILLION > prefs.maxPrompt) return true;
  if (prefs.maxCompletion >= 0n && p.completion * PER_MILLION > prefs.maxCompletion) return true;
  if (prefs.maxRequest >= 0n && p.request > prefs.maxRequest) return true;
  if (prefs.maxImage >= 0n && p.image > prefs.maxImage) return true;
  return false;
}

function fitTier(route: RouteEndpoint, facts: RequestFacts): number {
  const ep = route.endpoint;
  let tier = 0;
  if (facts.preferred.length > 0 && missingParameters(facts.preferred, ep.supportedParameters).length > 0) tier += 2;
  const max = facts.maxOutputTokens;
  if (max > 0 && (facts.promptTokens + max > ep.contextLength || (ep.maxOutputTokens !== undefined && max > ep.maxOutputTokens))) tier += 1;
  return tier;
}

function exclusion(model: string, route: RouteEndpoint, reason: string): Exclusion {
  return { model, endpoint: route.endpoint.id, provider: route.endpoint.provider.id, reason };
}
