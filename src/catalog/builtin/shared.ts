import type { PricingSpec } from '../types.ts';
import type { BuiltinEndpoint } from './builtin-types.ts';

/** Unix seconds of a UTC date, so release dates in the data stay readable. */
export function utc(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

/** Reasoning models at OpenAI (o-series, gpt-5) refuse sampling knobs and stop sequences. */
export const OPENAI_REASONING_UNSUPPORTED = [
  'temperature',
  'top_p',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'stop',
] as const;

/**
 * The same model through OpenRouter, which bills the vendor's list price per token (its
 * fee is taken on credit purchases), so the prices are the vendor's, cache prices spelled
 * out because OpenRouter's provider entry has no cache family of its own.
 */
export function viaOpenRouter(upstream: string, pricing: PricingSpec, extra: Partial<BuiltinEndpoint> = {}): BuiltinEndpoint {
  return { provider: 'openrouter', model: upstream, pricing, dataCollection: 'deny', ...extra };
}
