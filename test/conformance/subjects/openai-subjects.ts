import type { ReasoningEffort } from '../../../src/canonical/request.ts';
import { openaiAdapter } from '../../../src/providers/openai/openai-adapter.ts';
import { OPENAI_PROFILES } from '../../../src/providers/openai/openai-profiles.ts';
import type { CaseId, ConformanceSubject } from '../conformance-types.ts';
import { startOpenAIVendorUpstream } from '../upstreams/openai-vendor-upstream.ts';
import { checkOpenAIRequest } from './check-openai-request.ts';

// The openai adapter once per vendor profile, each against the OpenAI emulator behind that
// vendor's quirks and limits (upstreams/openai-vendor-upstream.ts, upstreams/vendor-limits.ts).
// Every skip is real: skipped-cases.test.ts runs each skipped case and asserts it fails.

interface OpenAISubjectSpec {
  profile: string;
  /** Provider id in docs/providers.md (the built-in provider, or `generic`). */
  provider: string;
  model: string;
  /** Null: a keyless local server. */
  apiKey: string | null;
  reasoningText: boolean;
  reasoningEffort?: ReasoningEffort;
  citations?: boolean;
  /** False when the vendor's usage has no cached-token count. */
  reportsCacheReads?: false;
  /** The spec's provider-specific fields this vendor takes: stated here, checked against what the adapter sends. */
  providerParameters?: readonly string[];
  skips?: Partial<Record<CaseId, string>>;
}

function openaiSubject(spec: OpenAISubjectSpec): ConformanceSubject {
  const profile = OPENAI_PROFILES.get(spec.profile)!;
  const config = {
    id: spec.provider,
    kind: 'openai' as const,
    name: profile.vendor,
    timeoutMs: 10_000,
    cacheFamily: 'prompt_cache_key' as const,
    profile: spec.profile,
    // The wire mapping is under test here: the operator lets the options that cost extra through.
    unpricedOptions: new Set(['service_tier', 'web_search_options', 'plugins']),
    ...(spec.apiKey === null ? {} : { apiKey: spec.apiKey }),
  };
  const subject: ConformanceSubject = {
    name: `openai (${spec.profile} profile)`,
    provider: spec.provider,
    adapter: openaiAdapter,
    config,
    upstreamModel: spec.model,
    startUpstream: () => startOpenAIVendorUpstream(spec.profile, spec.apiKey ?? undefined),
    checkRequest: (check) => checkOpenAIRequest(profile, spec.model, check),
    reasoningText: spec.reasoningText,
    providerParameters: spec.providerParameters ?? [],
    skips: spec.skips ?? {},
  };
  return {
    ...subject,
    ...(spec.reasoningEffort === undefined ? {} : { reasoningEffort: spec.reasoningEffort }),
    ...(spec.citations === true ? { citations: true } : {}),
    ...(spec.reportsCacheReads === false ? { reportsCacheReads: false as const } : {}),
  };
}

const NO_FILES = (vendor: string) => `${vendor} takes no file parts in chat completions`;
const NO_AUDIO = (vendor: string) => `${vendor} takes no audio in chat completions`;

export const OPENAI_SUBJECTS: readonly ConformanceSubject[] = [
  openaiSubject({
    profile: 'openai',
    provider: 'openai',
    model: 'gpt-4.1',
    apiKey: 'sk-openai',
    reasoningText: false,
    providerParameters: ['verbosity', 'service_tier', 'prediction', 'web_search_options'],
  }),
  openaiSubject({
    profile: 'azure',
    provider: 'azure',
    model: 'gpt-4o-deployment',
    apiKey: 'az-key',
    reasoningText: false,
    skips: {
      'pdf-input': 'file parts need a preview api_version at Azure; the default GA one refuses them',
      'audio-input': 'audio input needs a preview api_version at Azure; the default GA one refuses it',
    },
  }),
  openaiSubject({
    profile: 'xai',
    provider: 'xai',
    model: 'grok-3-mini',
    apiKey: 'xai-key',
    reasoningText: true,
    citations: true,
    providerParameters: ['search_parameters', 'deferred'],
    skips: { 'pdf-input': NO_FILES('xAI'), 'audio-input': NO_AUDIO('xAI') },
  }),
  openaiSubject({
    profile: 'mistral',
    provider: 'mistral',
    reportsCacheReads: false,
    model: 'magistral-medium-2509',
    apiKey: 'mistral-key',
    reasoningText: true,
    providerParameters: ['safe_prompt'],
    skips: {
      'pdf-input': 'Mistral takes documents as document_url parts, which the gateway does not map',
      'audio-input': "Mistral's input_audio takes a bare base64 string, which the gateway does not map",
      'prompt-caching': 'Mistral reports no cached tokens',
    },
  }),
  openaiSubject({
    profile: 'groq',
    provider: 'groq',
    model: 'openai/gpt-oss-120b',
    apiKey: 'gsk-key',
    reasoningText: true,
    skips: { 'pdf-input': NO_FILES('Groq'), 'audio-input': 'Groq transcribes audio on its own endpoint, not in chat' },
  }),
  openaiSubject({
    profile: 'deepseek',
    provider: 'deepseek',
    model: 'deepseek-reasoner',
    apiKey: 'ds-key',
    reasoningText: true,
    skips: {
      'structured-output': 'DeepSeek has JSON mode but no JSON schema: the schema cannot be sent, so the answer is not held to it',
      'image-input': "DeepSeek's chat API takes text only",
      'pdf-input': "DeepSeek's chat API takes text only",
      'audio-input': "DeepSeek's chat API takes text only",
    },
  }),
  openaiSubject({
    profile: 'together',
    provider: 'together',
    reportsCacheReads: false,
    model: 'openai/gpt-oss-120b',
    apiKey: 'tg-key',
    reasoningText: true,
    skips: {
      'pdf-input': NO_FILES('Together'),
      'audio-input': NO_AUDIO('Together'),
      'prompt-caching': 'Together reports no cached tokens',
    },
  }),
  openaiSubject({
    profile: 'fireworks',
    provider: 'fireworks',
    model: 'accounts/fireworks/models/gpt-oss-120b',
    apiKey: 'fw-key',
    reasoningText: true,
    skips: { 'pdf-input': NO_FILES('Fireworks'), 'audio-input': NO_AUDIO('Fireworks') },
  }),
  openaiSubject({
    profile: 'openrouter',
    provider: 'openrouter',
    model: 'openai/gpt-5-mini',
    apiKey: 'or-key',
    reasoningText: true,
    providerParameters: ['plugins', 'transforms', 'verbosity', 'web_search_options', 'prediction'],
  }),
  openaiSubject({
    profile: 'ollama',
    provider: 'ollama',
    reportsCacheReads: false,
    model: 'qwen3:8b',
    apiKey: null,
    reasoningText: true,
    skips: { 'pdf-input': NO_FILES('Ollama'), 'audio-input': NO_AUDIO('Ollama'), 'prompt-caching': 'Ollama reports no cached tokens' },
  }),
  openaiSubject({
    profile: 'vllm',
    provider: 'vllm',
    model: 'Qwen/Qwen3-8B',
    apiKey: null,
    reasoningText: true,
    skips: { 'pdf-input': NO_FILES('vLLM') },
  }),
  openaiSubject({
    profile: 'generic',
    provider: 'generic',
    model: 'local-model',
    apiKey: 'sk-local',
    reasoningText: true,
  }),
];
