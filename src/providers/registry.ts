import { anthropicAdapter } from './anthropic/anthropic-adapter.ts';
import { bedrockAdapter } from './bedrock/bedrock-adapter.ts';
import { googleAdapter } from './google/google-adapter.ts';
import { openaiAdapter } from './openai/openai-adapter.ts';
import { simAdapter } from './sim/sim-adapter.ts';
import type { ProviderAdapter } from './types.ts';
import { vertexAdapter } from './vertex/vertex-adapter.ts';

/** Every adapter kind the gateway ships, by kind. */
export function builtinAdapters(): Map<string, ProviderAdapter> {
  const adapters: ProviderAdapter[] = [openaiAdapter, anthropicAdapter, googleAdapter, bedrockAdapter, vertexAdapter, simAdapter];
  return new Map(adapters.map((a) => [a.kind, a]));
}
