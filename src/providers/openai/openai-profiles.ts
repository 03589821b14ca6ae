import type { RequestParameter } from '../../canonical/request.ts';
import type { ProviderConfig } from '../../catalog/types.ts';
import { AZURE_PROFILE } from './profiles/azure-profile.ts';
import { DEEPSEEK_PROFILE } from './profiles/deepseek-profile.ts';
import { FIREWORKS_PROFILE } from './profiles/fireworks-profile.ts';
import { GENERIC_PROFILE } from './profiles/generic-profile.ts';
import { GROQ_PROFILE } from './profiles/groq-profile.ts';
import { MISTRAL_PROFILE } from './profiles/mistral-profile.ts';
import { OLLAMA_PROFILE } from './profiles/ollama-profile.ts';
import type { InputKind, OpenAIProfile } from './profiles/openai-profile.ts';
import { OPENAI_PROFILE } from './profiles/openai-vendor-profile.ts';
import { OPENROUTER_PROFILE } from './profiles/openrouter-profile.ts';
import { TOGETHER_PROFILE } from './profiles/together-profile.ts';
import { VLLM_PROFILE } from './profiles/vllm-profile.ts';
import { XAI_PROFILE } from './profiles/xai-profile.ts';

export type { InputKind, OpenAIProfile } from './profiles/openai-profile.ts';

// One adapter serves OpenAI and every OpenAI-compatible server; a profile (profiles/) holds
// what differs between vendors. `provider.profile` picks one; absent or unknown means
// `generic` (config validation can check names against OPENAI_PROFILE_NAMES at boot).

export const OPENAI_PROFILES: ReadonlyMap<string, OpenAIProfile> = new Map<string, OpenAIProfile>(
  [
    OPENAI_PROFILE,
    AZURE_PROFILE,
    GENERIC_PROFILE,
    XAI_PROFILE,
    MISTRAL_PROFILE,
    GROQ_PROFILE,
    DEEPSEEK_PROFILE,
    TOGETHER_PROFILE,
    FIREWORKS_PROFILE,
    OPENROUTER_PROFILE,
    OLLAMA_PROFILE,
    VLLM_PROFILE,
  ].map((p) => [p.name, p]),
);

export const OPENAI_PROFILE_NAMES: readonly string[] = [...OPENAI_PROFILES.keys()];

export function openAIProfileFor(provider: ProviderConfig): OpenAIProfile {
  if (provider.profile === undefined) return GENERIC_PROFILE;
  return OPENAI_PROFILES.get(provider.profile) ?? GENERIC_PROFILE;
}

/** Every parameter some profile can carry: what the adapter as a whole supports. */
export function allOpenAIProfileParameters(): ReadonlySet<RequestParameter> {
  const all = new Set<RequestParameter>();
  for (const p of OPENAI_PROFILES.values()) for (const name of p.supported) all.add(name);
  return all;
}

/** The input kinds a provider of this profile takes: the profile's, plus its preview ones under a preview api-version. */
export function inputKindsFor(profile: OpenAIProfile, provider: ProviderConfig): ReadonlySet<InputKind> {
  if (profile.previewInput === undefined) return profile.input;
  const version = provider.options?.api_version;
  if (typeof version !== 'string' || !version.endsWith('-preview')) return profile.input;
  return new Set([...profile.input, ...profile.previewInput]);
}
