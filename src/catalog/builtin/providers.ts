import type { BuiltinProvider } from './builtin-types.ts';

// The OpenAI-compatible adapter falls back to its `generic` profile for profile names it
// does not know yet, so each vendor names its own profile and gains quirks when one lands.

/** Sampling extensions only self-hosted servers understand. */
const SELF_HOSTED_ONLY = ['top_k', 'min_p', 'repetition_penalty', 'top_a'] as const;

export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = [
  {
    id: 'openai', kind: 'openai', name: 'OpenAI', baseUrl: 'https://api.openai.com/v1',
    credentialEnv: ['OPENAI_API_KEY'], cacheFamily: 'prompt_cache_key', profile: 'openai',
    excludeParameters: SELF_HOSTED_ONLY,
  },
  {
    // Anthropic's OpenAI-compatible endpoint until the native `anthropic` adapter lands and
    // replaces it (that adapter brings prompt caching, thinking and structured outputs).
    id: 'anthropic', kind: 'openai', name: 'Anthropic', baseUrl: 'https://api.anthropic.com/v1',
    credentialEnv: ['ANTHROPIC_API_KEY'], cacheFamily: 'cache_control', profile: 'anthropic',
    excludeParameters: [
      ...SELF_HOSTED_ONLY, 'logit_bias', 'presence_penalty', 'frequency_penalty', 'seed',
      'response_format', 'structured_outputs', 'prompt_cache_key', 'modalities', 'audio',
    ],
  },
  {
    // Gemini's OpenAI-compatible endpoint until the native `google` adapter lands and replaces it.
    id: 'google', kind: 'openai', name: 'Google AI Studio', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    credentialEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], cacheFamily: 'none', profile: 'google',
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'presence_penalty', 'frequency_penalty', 'prompt_cache_key'],
  },
  {
    id: 'mistral', kind: 'openai', name: 'Mistral', baseUrl: 'https://api.mistral.ai/v1',
    credentialEnv: ['MISTRAL_API_KEY'], cacheFamily: 'none', profile: 'mistral',
    // Mistral names its seed `random_seed`; until a profile maps it, `seed` is not honoured.
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'seed', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'xai', kind: 'openai', name: 'xAI', baseUrl: 'https://api.x.ai/v1',
    credentialEnv: ['XAI_API_KEY'], cacheFamily: 'none', profile: 'xai',
    excludeParameters: [...SELF_HOSTED_ONLY, 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'groq', kind: 'openai', name: 'Groq', baseUrl: 'https://api.groq.com/openai/v1',
    credentialEnv: ['GROQ_API_KEY'], cacheFamily: 'none', profile: 'groq',
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'deepseek', kind: 'openai', name: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1',
    credentialEnv: ['DEEPSEEK_API_KEY'], cacheFamily: 'none', profile: 'deepseek',
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'seed', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'together', kind: 'openai', name: 'Together AI', baseUrl: 'https://api.together.xyz/v1',
    credentialEnv: ['TOGETHER_API_KEY'], cacheFamily: 'none', profile: 'together',
    excludeParameters: ['top_a', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'fireworks', kind: 'openai', name: 'Fireworks AI', baseUrl: 'https://api.fireworks.ai/inference/v1',
    credentialEnv: ['FIREWORKS_API_KEY'], cacheFamily: 'none', profile: 'fireworks',
    excludeParameters: ['top_a', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'openrouter', kind: 'openai', name: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1',
    credentialEnv: ['OPENROUTER_API_KEY'], cacheFamily: 'none', profile: 'openrouter',
  },
  {
    // In-process simulated upstream: every endpoint works on a fresh machine, and tests and
    // benchmarks get an upstream that costs nothing. The pace keeps demos readable.
    id: 'sim', kind: 'sim', name: 'Switchyard simulator', baseUrl: 'sim://local',
    credentialEnv: [], cacheFamily: 'prompt_cache_key', options: { chunk_delay_ms: 15 },
  },
];
