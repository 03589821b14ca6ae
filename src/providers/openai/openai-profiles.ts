import type { ProviderConfig } from '../../catalog/types.ts';

// One adapter serves OpenAI and every OpenAI-compatible server; a profile holds what differs
// between vendors. `provider.profile` picks one; absent or unknown means `generic`
// (config validation can check names against OPENAI_PROFILE_NAMES at boot).

export interface OpenAIProfile {
  readonly name: string;
  /** `max_tokens` is deprecated at OpenAI (and rejected by its reasoning models); most others only know it. */
  readonly maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Request parameters (chat-table names) the vendor accepts; the rest are dropped before sending. */
  readonly parameters: ReadonlySet<string>;
  /** `req.extra` keys copied into the body untouched. */
  readonly passThrough: ReadonlySet<string>;
}

const OPENAI_PARAMETERS = [
  'temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'seed', 'logit_bias',
  'max_tokens', 'stop', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format',
  'structured_outputs', 'reasoning', 'include_reasoning', 'modalities', 'audio',
  'prompt_cache_key', 'user',
] as const;

export const OPENAI_PROFILES: ReadonlyMap<string, OpenAIProfile> = new Map<string, OpenAIProfile>([
  ['openai', {
    name: 'openai',
    maxTokensField: 'max_completion_tokens',
    parameters: new Set<string>(OPENAI_PARAMETERS),
    // `store` stays out on purpose: storing completions at OpenAI would break the data policy.
    passThrough: new Set(['verbosity', 'service_tier', 'prediction', 'web_search_options', 'safety_identifier', 'prompt_cache_retention']),
  }],
  ['generic', {
    name: 'generic',
    maxTokensField: 'max_tokens',
    // vLLM, Ollama, llama.cpp and friends accept these sampling extensions.
    parameters: new Set<string>([...OPENAI_PARAMETERS, 'top_k', 'min_p', 'repetition_penalty']),
    passThrough: new Set(),
  }],
]);

export const OPENAI_PROFILE_NAMES: readonly string[] = [...OPENAI_PROFILES.keys()];

const GENERIC = OPENAI_PROFILES.get('generic')!;

export function openAIProfileFor(provider: ProviderConfig): OpenAIProfile {
  if (provider.profile === undefined) return GENERIC;
  return OPENAI_PROFILES.get(provider.profile) ?? GENERIC;
}

/** Every parameter some profile can carry: what the adapter as a whole supports. */
export function allOpenAIProfileParameters(): ReadonlySet<string> {
  const all = new Set<string>();
  for (const p of OPENAI_PROFILES.values()) for (const name of p.parameters) all.add(name);
  return all;
}
