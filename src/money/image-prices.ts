import type { Attos } from './money.ts';
import type { CompiledPricing } from './pricing.ts';

// Per-image prices by size and quality (`image_output_by`): keys `<size>/<quality>`, either
// side `*` for any. An image is priced by the most specific entry that matches it (exact,
// then `<size>/*`, then `*/<quality>`, then `*/*`), else by `image_output`. Sizes are
// `<width>x<height>`; qualities are the vendor's words (low, medium, high, standard, hd).

/** A key of `image_output_by`: a size (`1024x1024`) or a star, a slash, a quality (`high`) or a star. */
export const IMAGE_PRICE_KEY = /^(\*|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})\/(\*|[a-z][a-z0-9_-]{0,31})$/;

/** The price of one image of this size and quality (undefined: not known, matches only `*`). */
export function imageOutputPrice(pricing: CompiledPricing, size: string | undefined, quality: string | undefined): Attos {
  const by = pricing.imageOutputBy;
  if (by.size === 0) return pricing.imageOutput;
  const s = known(size);
  const q = known(quality);
  for (const key of [`${s}/${q}`, `${s}/*`, `*/${q}`, '*/*']) {
    const price = by.get(key);
    if (price !== undefined) return price;
  }
  return pricing.imageOutput;
}

/**
 * The most one image asked with this size and quality can cost: a side the request leaves
 * open (absent or `auto`) may turn out any value, so every entry matching the rest counts.
 */
export function imageOutputWorstPrice(pricing: CompiledPricing, size: string | undefined, quality: string | undefined): Attos {
  const s = known(size);
  const q = known(quality);
  let worst = pricing.imageOutput;
  for (const [key, price] of pricing.imageOutputBy) {
    const slash = key.indexOf('/');
    const ks = key.slice(0, slash);
    const kq = key.slice(slash + 1);
    if (s !== '*' && ks !== '*' && ks !== s) continue;
    if (q !== '*' && kq !== '*' && kq !== q) continue;
    if (price > worst) worst = price;
  }
  // A side the request fixes is priced by the entry that will match it, not by a dearer sibling: exact when both are known.
  if (s !== '*' && q !== '*') return imageOutputPrice(pricing, s, q);
  return worst;
}

function known(value: string | undefined): string {
  return value === undefined || value === 'auto' || value.length === 0 ? '*' : value;
}
