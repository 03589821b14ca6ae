import type { Attos } from './money.ts';
import type { CompiledPricing } from './pricing.ts';

/**
 * Every price times `basisPoints` / 10 000, rounded up to the atto (a fee never rounds to
 * less than it is): what a BYOK request is charged and held (docs/byok.md, `byok.fee_percent`).
 */
export function scalePricing(p: CompiledPricing, basisPoints: number): CompiledPricing {
  const bps = BigInt(basisPoints);
  const s = (a: Attos): Attos => (a * bps + 9_999n) / 10_000n;
  const imageOutputBy = new Map<string, Attos>();
  for (const [k, v] of p.imageOutputBy) imageOutputBy.set(k, s(v));
  const scaled = {
    prompt: s(p.prompt),
    completion: s(p.completion),
    request: s(p.request),
    image: s(p.image),
    cacheRead: s(p.cacheRead),
    cacheWrite: s(p.cacheWrite),
    imageOutput: s(p.imageOutput),
    imageOutputBy,
    imagePrompt: s(p.imagePrompt),
    character: s(p.character),
    audioSecond: s(p.audioSecond),
  };
  const free = Object.values(scaled).every((v) => typeof v !== 'bigint' || v === 0n) && [...imageOutputBy.values()].every((v) => v === 0n);
  return { ...scaled, free };
}
