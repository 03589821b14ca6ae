import type { Usage } from '../canonical/usage.ts';
import type { CompiledPricing } from '../money/pricing.ts';
import { imageOutputPrice } from '../money/image-prices.ts';
import { attosToNanos, formatAttos, formatNanos, type Nanos } from '../money/money.ts';

export interface Cost {
  /** What the account is charged, nano-USD (rounded once, half up). */
  totalNanos: Nanos;
  /** Exact line items in USD decimal text. */
  breakdown: {
    prompt: string;
    completion: string;
    cache_read: string;
    cache_write: string;
    request: string;
    image: string;
    /** Task models only, when they bill the unit: images generated, characters synthesized, seconds transcribed. */
    image_output?: string;
    image_input?: string;
    characters?: string;
    audio?: string;
    written_off?: string;
    cache_hit_discount?: string;
    /** Web searches the gateway ran (`search.price_per_search` each). */
    web_search?: string;
  };
}

/**
 * Exact cost of one answer. Prompt tokens are split into uncached, cache-read and
 * cache-write (usage.input includes both); reasoning tokens are inside output and
 * billed as completion. All arithmetic is bigint.
 */
export function computeCost(usage: Usage, pricing: CompiledPricing): Cost {
  const cacheRead = BigInt(usage.cacheRead);
  const cacheWrite = BigInt(usage.cacheWrite);
  const imageInputTokens = Math.max(0, Math.min(usage.imageInputTokens ?? 0, usage.input - usage.cacheRead - usage.cacheWrite));
  const uncached = BigInt(Math.max(0, usage.input - usage.cacheRead - usage.cacheWrite - imageInputTokens));
  const prompt = uncached * pricing.prompt;
  const imageInput = BigInt(imageInputTokens) * pricing.imagePrompt;
  const read = cacheRead * pricing.cacheRead;
  const write = cacheWrite * pricing.cacheWrite;
  const completion = BigInt(usage.output) * pricing.completion;
  const request = pricing.request;
  const image = BigInt(usage.images ?? 0) * pricing.image;
  const imageOutput = BigInt(usage.imagesOutput ?? 0) * imageOutputPrice(pricing, usage.imageSize, usage.imageQuality);
  const characters = BigInt(usage.characters ?? 0) * pricing.character;
  const audio = BigInt(audioSeconds(usage.audioMs ?? 0)) * pricing.audioSecond;
  const total = prompt + read + write + completion + request + image + imageInput + imageOutput + characters + audio;
  const breakdown: Cost['breakdown'] = {
    prompt: formatAttos(prompt),
    completion: formatAttos(completion),
    cache_read: formatAttos(read),
    cache_write: formatAttos(write),
    request: formatAttos(request),
    image: formatAttos(image),
  };
  if (imageOutput !== 0n) breakdown.image_output = formatAttos(imageOutput);
  if (imageInput !== 0n) breakdown.image_input = formatAttos(imageInput);
  if (characters !== 0n) breakdown.characters = formatAttos(characters);
  if (audio !== 0n) breakdown.audio = formatAttos(audio);
  return { totalNanos: attosToNanos(total), breakdown };
}

/**
 * `cost` (null when no model answered) plus the web searches the gateway ran for it, at the
 * operator's price per search: a search that ran is charged, whatever became of the answer.
 */
export function addWebSearchCost(cost: Cost | null, searches: number, pricePerSearch: Nanos): Cost {
  const nanos = BigInt(searches) * pricePerSearch;
  const base: Cost = cost ?? {
    totalNanos: 0n,
    breakdown: { prompt: '0', completion: '0', cache_read: '0', cache_write: '0', request: '0', image: '0' },
  };
  return { totalNanos: base.totalNanos + nanos, breakdown: { ...base.breakdown, web_search: formatNanos(nanos) } };
}

/**
 * The cost as charged when the overshoot rule (CreditReservations.chargeable) charges less
 * than it: the total becomes the charge, and the breakdown's `written_off` says what was
 * not charged (the line items still add up to the full cost).
 */
export function writeOff(cost: Cost, chargedNanos: Nanos): Cost {
  if (chargedNanos >= cost.totalNanos) return cost;
  return { totalNanos: chargedNanos, breakdown: { ...cost.breakdown, written_off: formatNanos(cost.totalNanos - chargedNanos) } };
}

/** Seconds of audio billed: whole seconds, rounded up (a 1.2 s clip bills 2). */
export function audioSeconds(ms: number): number {
  return Math.ceil(Math.max(0, ms) / 1000);
}
