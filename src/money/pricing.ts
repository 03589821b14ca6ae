import { priceToAttos, type Attos } from './money.ts';

/** Prices in USD per token (per request / per image for those), as decimal strings. */
export interface PricingSpec {
  prompt: string;
  completion: string;
  request?: string;
  image?: string;
  /** Per cached prompt token read; defaults from the provider's cache family. */
  cache_read?: string;
  /** Per prompt token written to the cache; defaults from the provider's cache family. */
  cache_write?: string;
  /** Per image generated (image models). */
  image_output?: string;
  /** Per character of input synthesized (speech models). */
  character?: string;
  /** Per second of input audio, whole seconds rounded up (transcription models). */
  audio_second?: string;
}

/** How a provider family prices prompt caching (spec: Limits, "Caching prices"). */
export type CacheFamily = 'prompt_cache_key' | 'cache_control' | 'none';

/** An endpoint's prices in atto-USD per unit, compiled once at boot. */
export interface CompiledPricing {
  prompt: Attos;
  completion: Attos;
  request: Attos;
  image: Attos;
  cacheRead: Attos;
  cacheWrite: Attos;
  imageOutput: Attos;
  character: Attos;
  audioSecond: Attos;
  /** True when every price is zero. */
  free: boolean;
}

/**
 * Cache prices default by provider family (spec, Limits): with `prompt_cache_key`
 * reads cost 0.5x the input price and writes nothing extra; with `cache_control`
 * writes cost 1.25x and reads 0.1x. An endpoint may override both.
 */
export function compilePricing(spec: PricingSpec, family: CacheFamily): CompiledPricing {
  const prompt = priceToAttos(spec.prompt);
  const completion = priceToAttos(spec.completion);
  const request = spec.request !== undefined ? priceToAttos(spec.request) : 0n;
  const image = spec.image !== undefined ? priceToAttos(spec.image) : 0n;
  let cacheRead: Attos;
  let cacheWrite: Attos;
  switch (family) {
    case 'prompt_cache_key':
      cacheRead = exactMultiple(prompt, 50n, spec);
      cacheWrite = prompt;
      break;
    case 'cache_control':
      cacheRead = exactMultiple(prompt, 10n, spec);
      cacheWrite = exactMultiple(prompt, 125n, spec);
      break;
    case 'none':
      cacheRead = prompt;
      cacheWrite = prompt;
      break;
  }
  if (spec.cache_read !== undefined) cacheRead = priceToAttos(spec.cache_read);
  if (spec.cache_write !== undefined) cacheWrite = priceToAttos(spec.cache_write);
  const imageOutput = optionalPrice(spec.image_output);
  const character = optionalPrice(spec.character);
  const audioSecond = optionalPrice(spec.audio_second);
  const free = prompt === 0n && completion === 0n && request === 0n && image === 0n && imageOutput === 0n && character === 0n && audioSecond === 0n;
  return { prompt, completion, request, image, cacheRead, cacheWrite, imageOutput, character, audioSecond, free };
}

function optionalPrice(price: string | undefined): Attos {
  return price === undefined ? 0n : priceToAttos(price);
}

/** price × percent / 100, refusing a price so fine that the product is not exact in attos. */
function exactMultiple(price: Attos, percent: bigint, spec: PricingSpec): Attos {
  const scaled = price * percent;
  if (scaled % 100n !== 0n) throw new Error(`prompt price ${spec.prompt} is too fine to derive cache prices exactly; set cache_read/cache_write`);
  return scaled / 100n;
}
