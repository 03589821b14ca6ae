import type { CanonicalRequest } from '../canonical/request.ts';
import type { Endpoint } from '../catalog/types.ts';
import type { PlannedAttempt } from '../routing/attempt.ts';
import { ATTOS_PER_NANO, type Attos, type Nanos } from './money.ts';

/**
 * The most a request can cost, to hold before calling upstream. The prompt estimate is
 * padded (our tokenizer is approximate, and a provider's count may be higher), priced at
 * the dearer of the prompt and cache-write prices; the output is the requested maximum,
 * or what the endpoint can emit. Over a plan, the dearest attempt counts, since routing
 * may fall back to it.
 */
export function worstCaseCost(req: CanonicalRequest, plan: readonly PlannedAttempt[], promptTokens: number): Nanos {
  let worst = 0n;
  const padded = paddedPrompt(promptTokens);
  const images = BigInt(countInputImages(req));
  for (const { endpoint } of plan) {
    const cost = attemptCost(endpoint, padded, maxOutputTokens(req, endpoint, padded), images);
    if (cost > worst) worst = cost;
  }
  return ceilToNanos(worst);
}

/** Output tokens the request may produce on this endpoint (reasoning included). */
export function maxOutputTokens(req: CanonicalRequest, endpoint: Endpoint, promptTokens: number): number {
  const requested = req.maxOutputTokens ?? endpoint.maxOutputTokens ?? Math.max(1, endpoint.contextLength - promptTokens);
  const budget = req.reasoning?.maxTokens ?? 0;
  return requested + budget;
}

/**
 * How many output tokens `availableNanos` can pay for on this endpoint, once the prompt,
 * request and image prices are covered: what a 402 tells the client.
 */
export function affordableOutputTokens(req: CanonicalRequest, endpoint: Endpoint, promptTokens: number, availableNanos: Nanos): number {
  const p = endpoint.compiledPricing;
  const padded = BigInt(paddedPrompt(promptTokens));
  const fixed = padded * maxBig(p.prompt, p.cacheWrite) + p.request + BigInt(countInputImages(req)) * p.image;
  const left = availableNanos * ATTOS_PER_NANO - fixed;
  if (left <= 0n) return 0;
  if (p.completion === 0n) return Number.MAX_SAFE_INTEGER;
  return Number(left / p.completion);
}

export function paddedPrompt(tokens: number): number {
  return Math.ceil(tokens * 1.25) + 32;
}

function attemptCost(endpoint: Endpoint, promptTokens: number, outputTokens: number, images: bigint): Attos {
  const p = endpoint.compiledPricing;
  return BigInt(promptTokens) * maxBig(p.prompt, p.cacheWrite) + BigInt(outputTokens) * p.completion + p.request + images * p.image;
}

/** Images in the request's input, for endpoints that price them per image. */
export function countInputImages(req: CanonicalRequest): number {
  let n = 0;
  for (const m of req.messages) {
    if (m.role !== 'user') continue;
    for (const part of m.content) if (part.type === 'image') n++;
  }
  return n;
}

function ceilToNanos(attos: Attos): Nanos {
  return (attos + ATTOS_PER_NANO - 1n) / ATTOS_PER_NANO;
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
