import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { utc } from './shared.ts';

// Mistral, xAI, DeepSeek and Meta's Llama (served by Groq, Together and Fireworks), at each
// vendor's list price in USD per token.

/** xAI's reasoning models refuse these (and grok-4 any reasoning effort). */
const XAI_REASONING_UNSUPPORTED = ['presence_penalty', 'frequency_penalty', 'stop'] as const;

const TEXT_TOOLS_JSON = ['text', 'tool_calling', 'json_mode', 'streaming'] as const;

/** Llama does not reason; the hosts refuse a reasoning effort for it. */
const NO_REASONING = ['reasoning', 'include_reasoning'] as const;

const MISTRAL_LARGE_3: PricingSpec = { prompt: '0.0000005', completion: '0.0000015' }; // $0.50 / $1.50 per M
const MISTRAL_SMALL_3_2: PricingSpec = { prompt: '0.0000001', completion: '0.0000003' }; // $0.10 / $0.30
const GROK_4: PricingSpec = { prompt: '0.000003', completion: '0.000015', cache_read: '0.00000075' }; // $3 / $15, cached $0.75
const GROK_4_FAST: PricingSpec = { prompt: '0.0000002', completion: '0.0000005', cache_read: '0.00000005' }; // $0.20 / $0.50 (prompts < 128k), cached $0.05
const GROK_3_MINI: PricingSpec = { prompt: '0.0000003', completion: '0.0000005', cache_read: '0.000000075' }; // $0.30 / $0.50, cached $0.075
const DEEPSEEK_V3_2: PricingSpec = { prompt: '0.00000028', completion: '0.00000042', cache_read: '0.000000028' }; // $0.28 / $0.42, cache hit $0.028

export const OTHER_VENDOR_MODELS: readonly BuiltinModel[] = [
  {
    id: 'mistralai/mistral-large',
    name: 'Mistral: Mistral Large 3',
    description: "Mistral's open-weight flagship: a 675B mixture-of-experts model (41B active) with vision.",
    contextLength: 262_144,
    capabilities: [...TEXT_TOOLS_JSON, 'structured_outputs', 'multimodal'],
    aliases: ['mistral-large-latest', 'mistral-large-2512'],
    created: utc('2025-12-02'),
    endpoints: [{ provider: 'mistral', model: 'mistral-large-2512', pricing: MISTRAL_LARGE_3, dataCollection: 'deny' }],
  },
  {
    id: 'mistralai/mistral-small',
    name: 'Mistral: Mistral Small 3.2',
    description: "Mistral's efficient 24B model with vision, for high-volume tasks.",
    contextLength: 128_000,
    capabilities: [...TEXT_TOOLS_JSON, 'structured_outputs', 'multimodal'],
    aliases: ['mistral-small-latest', 'mistral-small-2506'],
    created: utc('2025-06-20'),
    endpoints: [{ provider: 'mistral', model: 'mistral-small-2506', pricing: MISTRAL_SMALL_3_2, dataCollection: 'deny' }],
  },
  {
    id: 'x-ai/grok-4',
    name: 'xAI: Grok 4',
    description: "xAI's flagship reasoning model; it always reasons and takes no reasoning effort.",
    contextLength: 256_000,
    capabilities: [...TEXT_TOOLS_JSON, 'structured_outputs', 'multimodal', 'reasoning'],
    aliases: ['grok-4-0709'],
    created: utc('2025-07-09'),
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4-0709',
        pricing: GROK_4,
        dataCollection: 'deny',
        excludeParameters: [...XAI_REASONING_UNSUPPORTED, 'reasoning'],
      },
    ],
  },
  {
    id: 'x-ai/grok-4-fast',
    name: 'xAI: Grok 4 Fast',
    description: 'Cost-efficient Grok 4 reasoning model with a 2M-token context (higher prices past 128k prompt tokens).',
    contextLength: 2_000_000,
    capabilities: [...TEXT_TOOLS_JSON, 'structured_outputs', 'multimodal', 'reasoning'],
    aliases: ['grok-4-fast-reasoning'],
    created: utc('2025-09-19'),
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4-fast-reasoning',
        pricing: GROK_4_FAST,
        dataCollection: 'deny',
        excludeParameters: [...XAI_REASONING_UNSUPPORTED, 'reasoning'],
      },
    ],
  },
  {
    id: 'x-ai/grok-3-mini',
    name: 'xAI: Grok 3 Mini',
    description: 'Lightweight reasoning model whose thinking traces are returned.',
    contextLength: 131_072,
    capabilities: [...TEXT_TOOLS_JSON, 'structured_outputs', 'reasoning'],
    aliases: [],
    created: utc('2025-04-09'),
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-3-mini',
        pricing: GROK_3_MINI,
        dataCollection: 'deny',
        excludeParameters: XAI_REASONING_UNSUPPORTED,
      },
    ],
  },
  {
    // DeepSeek may use API data for training, hence `allow`.
    id: 'deepseek/deepseek-chat',
    name: 'DeepSeek: DeepSeek V3.2 (non-thinking)',
    description: "DeepSeek-V3.2 in non-thinking mode; input tokens that hit DeepSeek's cache cost a tenth.",
    contextLength: 128_000,
    maxOutputTokens: 8_192,
    capabilities: [...TEXT_TOOLS_JSON],
    aliases: [],
    created: utc('2025-12-01'),
    endpoints: [{ provider: 'deepseek', model: 'deepseek-chat', pricing: DEEPSEEK_V3_2, dataCollection: 'allow' }],
  },
  {
    id: 'deepseek/deepseek-reasoner',
    name: 'DeepSeek: DeepSeek V3.2 (thinking)',
    description: 'DeepSeek-V3.2 in thinking mode, returning its reasoning; sampling parameters have no effect.',
    contextLength: 128_000,
    maxOutputTokens: 65_536,
    capabilities: [...TEXT_TOOLS_JSON, 'reasoning'],
    aliases: [],
    created: utc('2025-12-01'),
    endpoints: [
      {
        provider: 'deepseek',
        model: 'deepseek-reasoner',
        pricing: DEEPSEEK_V3_2,
        dataCollection: 'allow',
        excludeParameters: ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty'],
      },
    ],
  },
  {
    id: 'meta-llama/llama-3.3-70b-instruct',
    name: 'Meta: Llama 3.3 70B Instruct',
    description: "Meta's multilingual 70B instruction-tuned model.",
    contextLength: 131_072,
    capabilities: [...TEXT_TOOLS_JSON],
    aliases: ['llama-3.3-70b', 'llama-3.3-70b-versatile'],
    created: utc('2024-12-06'),
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.3-70b-versatile',
        pricing: { prompt: '0.00000059', completion: '0.00000079' },
        maxOutputTokens: 32_768,
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.59 / $0.79
      {
        provider: 'together',
        model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
        pricing: { prompt: '0.00000088', completion: '0.00000088' },
        quantization: 'fp8',
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.88 / $0.88
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
        pricing: { prompt: '0.0000009', completion: '0.0000009' },
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.90 / $0.90
    ],
  },
  {
    id: 'meta-llama/llama-3.1-8b-instruct',
    name: 'Meta: Llama 3.1 8B Instruct',
    description: "Meta's small, fast 8B instruction-tuned model.",
    contextLength: 131_072,
    capabilities: [...TEXT_TOOLS_JSON],
    aliases: ['llama-3.1-8b', 'llama-3.1-8b-instant'],
    created: utc('2024-07-23'),
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.1-8b-instant',
        pricing: { prompt: '0.00000005', completion: '0.00000008' },
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.05 / $0.08
      {
        provider: 'together',
        model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo',
        pricing: { prompt: '0.00000018', completion: '0.00000018' },
        quantization: 'fp8',
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.18 / $0.18
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/llama-v3p1-8b-instruct',
        pricing: { prompt: '0.0000002', completion: '0.0000002' },
        dataCollection: 'deny',
        excludeParameters: NO_REASONING,
      }, // $0.20 / $0.20
    ],
  },
];
