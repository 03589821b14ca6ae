import { PROVIDER_KINDS, type ProviderKind } from '../config/provider-kinds.ts';
import { anthropicAdapter } from './anthropic/anthropic-adapter.ts';
import { bedrockAdapter } from './bedrock/bedrock-adapter.ts';
import { googleAdapter } from './google/google-adapter.ts';
import { openaiAdapter } from './openai/openai-adapter.ts';
import { simAdapter } from './sim/sim-adapter.ts';
import type { ProviderAdapter } from './types.ts';
import { vertexAdapter } from './vertex/vertex-adapter.ts';

/** One adapter per kind: a kind added to PROVIDER_KINDS fails to compile here until it has one. */
const ADAPTERS: { readonly [K in ProviderKind]: ProviderAdapter } = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  google: googleAdapter,
  bedrock: bedrockAdapter,
  vertex: vertexAdapter,
  sim: simAdapter,
};

/** Every adapter kind the gateway ships, by kind. */
export function builtinAdapters(): Map<string, ProviderAdapter> {
  return new Map(PROVIDER_KINDS.map((kind) => [kind, ADAPTERS[kind]]));
}
