import type { RequestParameter } from '../../canonical/request.ts';
// Shapes of the built-in catalog data. Built-ins go through the same merge and compile
// path as config entries; these types only add what data files need and a config never
// states (credential env vars, parameter exclusions).

import type { CacheFamily, Capability, ModelKind, PricingSpec } from '../types.ts';
import type { ProviderKind } from '../../config/provider-kinds.ts';

export interface BuiltinProvider {
  id: string;
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  /** Env vars that hold the API key, first non-empty wins. Empty: needs no credential. */
  credentialEnv: readonly string[];
  cacheFamily: CacheFamily;
  profile?: string;
  headers?: Record<string, string>;
  options?: Record<string, unknown>;
  /** Parameters the adapter kind can carry but this vendor rejects or ignores. */
  excludeParameters?: readonly RequestParameter[];
}

export interface BuiltinEndpoint {
  provider: string;
  /** Upstream model id. */
  model: string;
  /** USD per token as decimal strings. */
  pricing: PricingSpec;
  contextLength?: number;
  maxOutputTokens?: number;
  quantization?: string;
  dataCollection: 'allow' | 'deny';
  zdr?: boolean;
  /** Parameters this model rejects or ignores at this vendor, on top of the provider's. */
  excludeParameters?: readonly RequestParameter[];
}

export interface BuiltinModel {
  id: string;
  /** What the model produces (default `chat`). */
  kind?: ModelKind;
  name: string;
  description: string;
  contextLength: number;
  /** Default for endpoints that do not state their own. */
  maxOutputTokens?: number;
  capabilities: Capability[];
  aliases: string[];
  /** Unix seconds (release date). */
  created: number;
  endpoints: BuiltinEndpoint[];
}
