import type { BuiltinProvider } from './builtin-types.ts';

// Each OpenAI-compatible vendor names its profile (src/providers/openai/profiles/), which
// states how every request parameter travels to it; `excludeParameters` here only narrows
// further where the vendor's models refuse what its API otherwise takes.

/** Sampling extensions only self-hosted servers understand. */
const SELF_HOSTED_ONLY = ['top_k', 'min_p', 'repetition_penalty', 'top_a'] as const;

export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = [
  {
    id: 'openai',
    kind: 'openai',
    name: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    credentialEnv: ['OPENAI_API_KEY'],
    cacheFamily: 'prompt_cache_key',
    profile: 'openai',
    excludeParameters: SELF_HOSTED_ONLY,
  },
  {
    // The native Messages API: the `anthropic` adapter carries only what it has fields for,
    // so nothing needs excluding here.
    id: 'anthropic',
    kind: 'anthropic',
    name: 'Anthropic',
    baseUrl: 'https://api.anthropic.com',
    credentialEnv: ['ANTHROPIC_API_KEY'],
    cacheFamily: 'cache_control',
  },
  {
    // The native Gemini API (src/providers/google/). Gemini 2.5 refuses the penalties
    // ("Penalty is not enabled for models/gemini-2.5-flash"), which the adapter can carry.
    id: 'google',
    kind: 'google',
    name: 'Google AI Studio',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    credentialEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    cacheFamily: 'none',
    excludeParameters: ['presence_penalty', 'frequency_penalty'],
  },
  {
    id: 'mistral',
    kind: 'openai',
    name: 'Mistral',
    baseUrl: 'https://api.mistral.ai/v1',
    credentialEnv: ['MISTRAL_API_KEY'],
    cacheFamily: 'none',
    profile: 'mistral',
    // `seed` travels as Mistral's `random_seed` (the profile renames it).
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'xai',
    kind: 'openai',
    name: 'xAI',
    baseUrl: 'https://api.x.ai/v1',
    credentialEnv: ['XAI_API_KEY'],
    cacheFamily: 'none',
    profile: 'xai',
    excludeParameters: [...SELF_HOSTED_ONLY, 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'groq',
    kind: 'openai',
    name: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    credentialEnv: ['GROQ_API_KEY'],
    cacheFamily: 'none',
    profile: 'groq',
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'deepseek',
    kind: 'openai',
    name: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    credentialEnv: ['DEEPSEEK_API_KEY'],
    cacheFamily: 'none',
    profile: 'deepseek',
    excludeParameters: [...SELF_HOSTED_ONLY, 'logit_bias', 'seed', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'together',
    kind: 'openai',
    name: 'Together AI',
    baseUrl: 'https://api.together.xyz/v1',
    credentialEnv: ['TOGETHER_API_KEY'],
    cacheFamily: 'none',
    profile: 'together',
    excludeParameters: ['top_a', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'fireworks',
    kind: 'openai',
    name: 'Fireworks AI',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    credentialEnv: ['FIREWORKS_API_KEY'],
    cacheFamily: 'none',
    profile: 'fireworks',
    excludeParameters: ['top_a', 'prompt_cache_key', 'modalities', 'audio'],
  },
  {
    id: 'openrouter',
    kind: 'openai',
    name: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    credentialEnv: ['OPENROUTER_API_KEY'],
    cacheFamily: 'none',
    profile: 'openrouter',
  },
  {
    // Azure OpenAI serves deployments the operator created, so its models come from the
    // config, and so does its endpoint: `base_url: ${AZURE_OPENAI_ENDPOINT}` (this
    // placeholder's .invalid domain never resolves, so the key cannot leak to a stranger).
    // `options.api_version` picks the API version.
    id: 'azure',
    kind: 'openai',
    name: 'Azure OpenAI',
    baseUrl: 'https://azure-openai-endpoint.invalid',
    credentialEnv: ['AZURE_OPENAI_API_KEY'],
    cacheFamily: 'prompt_cache_key',
    profile: 'azure',
  },
  {
    // Local servers need no key and serve whatever models were pulled: a config entry turns
    // them on (`enabled: true`, `base_url` when not on this default) and lists the models.
    // The variable below also turns one on, for a server started with a key.
    id: 'ollama',
    kind: 'openai',
    name: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    credentialEnv: ['OLLAMA_API_KEY'],
    cacheFamily: 'none',
    profile: 'ollama',
  },
  {
    id: 'vllm',
    kind: 'openai',
    name: 'vLLM',
    baseUrl: 'http://127.0.0.1:8000/v1',
    credentialEnv: ['VLLM_API_KEY'],
    cacheFamily: 'none',
    profile: 'vllm',
  },
  {
    // In-process simulated upstream: every endpoint works on a fresh machine, and tests and
    // benchmarks get an upstream that costs nothing. The pace keeps demos readable.
    id: 'sim',
    kind: 'sim',
    name: 'Switchyard simulator',
    baseUrl: 'sim://local',
    credentialEnv: [],
    cacheFamily: 'prompt_cache_key',
    options: { chunk_delay_ms: 15 },
  },
];
