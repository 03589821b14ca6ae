import type { CanonicalRequest } from '../canonical/request.ts';
import type { Endpoint } from '../catalog/types.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import { ATTOS_PER_NANO, type Attos, type Nanos } from '../money/money.ts';
import { taskOutputTokensBound, taskUnitsWorstCase } from './task-cost.ts';

/**
 * The most a request can cost, to hold before calling upstream. `promptBound` is an upper
 * bound of the prompt tokens (canonical/prompt-token-bound.ts), capped on each endpoint at
 * its context length (a provider does not take, so does not charge, a longer prompt),
 * priced at the dearer of the prompt and cache-write prices; the output is the requested
 * maximum, or what the endpoint can emit. Over a plan, the dearest attempt counts, since
 * routing may fall back to it.
 */
export function worstCaseCost(req: CanonicalRequest, plan: readonly PlannedAttempt[], promptBound: number): Nanos {
  const search = req.webSearch;
  // A web search the gateway runs: its price, and its results in the prompt (docs/tools.md).
  if (search !== undefined) {
    const bound = promptBound + search.promptTokens;
    return ceilToNanos(attemptCost(req, dearestEndpoint(req, plan, bound), bound)) + search.priceNanos;
  }
  return ceilToNanos(attemptCost(req, dearestEndpoint(req, plan, promptBound), promptBound));
}

/** The plan's endpoint with the highest worst case: the one a hold (and a 402) is priced on. */
export function dearestEndpoint(req: CanonicalRequest, plan: readonly PlannedAttempt[], promptBound: number): Endpoint {
  let worst = -1n;
  let dearest = plan[0]!.endpoint;
  for (const { endpoint } of plan) {
    const cost = attemptCost(req, endpoint, promptBound);
    if (cost > worst) {
      worst = cost;
      dearest = endpoint;
    }
  }
  return dearest;
}

/** The prompt tokens an endpoint can charge at most. */
export function promptOn(endpoint: Endpoint, promptBound: number): number {
  return Math.min(promptBound, endpoint.contextLength);
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
export function affordableOutputTokens(req: CanonicalRequest, endpoint: Endpoint, promptBound: number, availableNanos: Nanos): number {
  const search = req.webSearch;
  if (search !== undefined) {
    promptBound += search.promptTokens;
    availableNanos -= search.priceNanos;
  }
  const p = endpoint.compiledPricing;
  const fixed =
    BigInt(promptOn(endpoint, promptBound)) * maxBig(p.prompt, p.cacheWrite) + p.request + BigInt(countInputImages(req)) * p.image;
  const left = availableNanos * ATTOS_PER_NANO - fixed;
  if (left <= 0n) return 0;
  if (p.completion === 0n) return Number.MAX_SAFE_INTEGER;
  return Number(left / p.completion);
}

function attemptCost(req: CanonicalRequest, endpoint: Endpoint, promptBound: number): Attos {
  const p = endpoint.compiledPricing;
  const promptPrice = maxBig(p.prompt, p.cacheWrite);
  const task = req.task;
  if (task !== undefined) {
    // A task's output is bounded by its own units (n images, the input's characters, the audio's duration).
    // An edit's input images are billed as image tokens, which may be dearer (image_prompt).
    // Embedding inputs are each a prompt of their own: the context length bounds each, not their sum.
    const promptTokens =
      task.kind === 'embedding' ? Math.min(promptBound, endpoint.contextLength * task.input.length) : promptOn(endpoint, promptBound);
    const prompt = BigInt(promptTokens) * (task.kind === 'image' ? maxBig(promptPrice, p.imagePrompt) : promptPrice);
    return prompt + BigInt(taskOutputTokensBound(task, endpoint)) * p.completion + p.request + taskUnitsWorstCase(task, endpoint);
  }
  const fixed = p.request + BigInt(countInputImages(req)) * p.image;
  const prompt = promptOn(endpoint, promptBound);
  const atBound = BigInt(prompt) * promptPrice + BigInt(maxOutputTokens(req, endpoint, prompt)) * p.completion;
  if (req.maxOutputTokens !== undefined || endpoint.maxOutputTokens !== undefined) return atBound + fixed;
  // The output may fill the context the prompt leaves: a prompt shorter than its bound
  // leaves more of it, which costs more when output is dearer than prompt.
  const atEmpty = BigInt(maxOutputTokens(req, endpoint, 0)) * p.completion;
  return maxBig(atBound, atEmpty) + fixed;
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
