// The built-in catalog: well-known providers (each enabled by its credential env var) and
// the models they serve, at public list prices. The operator's config adds or overrides.

import type { BuiltinModel } from './builtin/builtin-types.ts';
import { ANTHROPIC_MODELS } from './builtin/models-anthropic.ts';
import { EMBEDDING_MODELS } from './builtin/models-embeddings.ts';
import { AUDIO_MODELS } from './builtin/models-audio.ts';
import { GOOGLE_MODELS } from './builtin/models-google.ts';
import { OPENAI_MODELS } from './builtin/models-openai.ts';
import { IMAGE_MODELS } from './builtin/models-images.ts';
import { OTHER_VENDOR_MODELS } from './builtin/models-other-vendors.ts';
import { SIM_MODELS } from './builtin/models-sim.ts';

export { BUILTIN_PROVIDERS } from './builtin/providers.ts';
export type { BuiltinEndpoint, BuiltinModel, BuiltinProvider } from './builtin/builtin-types.ts';

export const BUILTIN_MODELS: readonly BuiltinModel[] = [
  ...OPENAI_MODELS,
  ...ANTHROPIC_MODELS,
  ...GOOGLE_MODELS,
  ...OTHER_VENDOR_MODELS,
  ...EMBEDDING_MODELS,
  ...IMAGE_MODELS,
  ...AUDIO_MODELS,
  ...SIM_MODELS,
];

/** The id of the built-in simulated provider. */
export const SIM_PROVIDER_ID = 'sim';
