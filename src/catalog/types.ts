// The catalog: models (`<author>/<name>`) and the provider endpoints that serve them.
// Built once at boot from the built-in catalog, the credentials present and the config.

import type { CompiledPricing } from '../billing/pricing.ts';

export type Capability =
  | 'text' | 'tool_calling' | 'json_mode' | 'structured_outputs' | 'streaming'
  | 'multimodal' | 'reasoning' | 'audio_input' | 'audio_output' | 'image_output' | 'pdf_input';

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
}

/** How a provider family prices prompt caching (spec: Limits, "Caching prices"). */
export type CacheFamily = 'prompt_cache_key' | 'cache_control' | 'none';

export interface ProviderConfig {
  /** Slug used in routing (`openai`, `anthropic`, `local`, ...). */
  id: string;
  /** Adapter kind: `openai`, `anthropic`, `google`, `sim`, ... */
  kind: string;
  name: string;
  baseUrl: string;
  apiKey?: string;
  /** Extra headers sent upstream with every request. */
  headers?: Record<string, string>;
  /** Per-attempt timeout in ms. */
  timeoutMs: number;
  cacheFamily: CacheFamily;
  /** Vendor profile of the adapter (for `openai`: `openai`, `generic`, ...): quirks and accepted params. */
  profile?: string;
  /** Adapter-specific settings (e.g. the `sim` provider's pace). */
  options?: Record<string, unknown>;
  /** Every endpoint of this provider is moderated. */
  moderated?: boolean;
  /** Options that cost extra upstream which the operator lets through unpriced (providers/unpriced-options.ts). */
  unpricedOptions?: ReadonlySet<string>;
}

export interface Endpoint {
  /**
   * `<provider id>/<upstream model>`: unique within a model. Models that share an upstream
   * model have endpoints with the same id, and so one health record and one circuit.
   */
  id: string;
  modelId: string;
  provider: ProviderConfig;
  upstreamModel: string;
  pricing: PricingSpec;
  compiledPricing: CompiledPricing;
  contextLength: number;
  maxOutputTokens?: number;
  quantization?: string;
  dataCollection: 'allow' | 'deny';
  zdr: boolean;
  /** Request parameters this endpoint honours (chat-table names: `temperature`, `tools`, ...). */
  supportedParameters: ReadonlySet<string>;
  /** Requests bound here pass moderation first (config: provider or endpoint `moderated: true`). */
  moderated?: boolean;
}

export interface ModelInfo {
  id: string; // author/name
  name: string;
  author: string;
  description: string;
  contextLength: number;
  capabilities: Capability[];
  /** Other names that resolve to this model (dated vendor names, bare names). */
  aliases: string[];
  /** Unix seconds. */
  created: number;
  endpoints: Endpoint[];
}
