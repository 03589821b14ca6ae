import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { OPENAI_REASONING_UNSUPPORTED, utc, viaOpenRouter } from './shared.ts';

// OpenAI list prices (USD per token). Cached input is priced per model family (gpt-5: 10%,
// gpt-4.1: 25%, gpt-4o and o-series: 50% of input), so every entry states `cache_read`.

const GPT_5: PricingSpec = { prompt: '0.00000125', completion: '0.00001', cache_read: '0.000000125' }; // $1.25 / $10 per M, cached $0.125
const GPT_5_MINI: PricingSpec = { prompt: '0.00000025', completion: '0.000002', cache_read: '0.000000025' }; // $0.25 / $2, cached $0.025
const GPT_5_NANO: PricingSpec = { prompt: '0.00000005', completion: '0.0000004', cache_read: '0.000000005' }; // $0.05 / $0.40, cached $0.005
const GPT_4_1: PricingSpec = { prompt: '0.000002', completion: '0.000008', cache_read: '0.0000005' }; // $2 / $8, cached $0.50
const GPT_4_1_MINI: PricingSpec = { prompt: '0.0000004', completion: '0.0000016', cache_read: '0.0000001' }; // $0.40 / $1.60, cached $0.10
const GPT_4_1_NANO: PricingSpec = { prompt: '0.0000001', completion: '0.0000004', cache_read: '0.000000025' }; // $0.10 / $0.40, cached $0.025
const GPT_4O: PricingSpec = { prompt: '0.0000025', completion: '0.00001', cache_read: '0.00000125' }; // $2.50 / $10, cached $1.25
const GPT_4O_MINI: PricingSpec = { prompt: '0.00000015', completion: '0.0000006', cache_read: '0.000000075' }; // $0.15 / $0.60, cached $0.075
const O4_MINI: PricingSpec = { prompt: '0.0000011', completion: '0.0000044', cache_read: '0.000000275' }; // $1.10 / $4.40, cached $0.275
const O3: PricingSpec = { prompt: '0.000002', completion: '0.000008', cache_read: '0.0000005' }; // $2 / $8, cached $0.50
const GPT_OSS_120B: PricingSpec = { prompt: '0.00000015', completion: '0.0000006' }; // $0.15 / $0.60 at Groq, Together and Fireworks

const FULL = ['text', 'tool_calling', 'json_mode', 'structured_outputs', 'streaming', 'multimodal', 'pdf_input'] as const;

export const OPENAI_MODELS: readonly BuiltinModel[] = [
  {
    id: 'openai/gpt-5',
    name: 'OpenAI: GPT-5',
    description: "OpenAI's flagship reasoning model for coding and agentic tasks, with adjustable reasoning effort.",
    contextLength: 400_000,
    maxOutputTokens: 128_000,
    capabilities: [...FULL, 'reasoning'],
    aliases: ['gpt-5-2025-08-07'],
    created: utc('2025-08-07'),
    endpoints: [
      { provider: 'openai', model: 'gpt-5', pricing: GPT_5, dataCollection: 'deny', excludeParameters: OPENAI_REASONING_UNSUPPORTED },
      viaOpenRouter('openai/gpt-5', GPT_5, { excludeParameters: OPENAI_REASONING_UNSUPPORTED }),
    ],
  },
  {
    id: 'openai/gpt-5-mini',
    name: 'OpenAI: GPT-5 Mini',
    description: 'A faster, cheaper GPT-5 for well-defined tasks.',
    contextLength: 400_000,
    maxOutputTokens: 128_000,
    capabilities: [...FULL, 'reasoning'],
    aliases: ['gpt-5-mini-2025-08-07'],
    created: utc('2025-08-07'),
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5-mini',
        pricing: GPT_5_MINI,
        dataCollection: 'deny',
        excludeParameters: OPENAI_REASONING_UNSUPPORTED,
      },
      viaOpenRouter('openai/gpt-5-mini', GPT_5_MINI, { excludeParameters: OPENAI_REASONING_UNSUPPORTED }),
    ],
  },
  {
    id: 'openai/gpt-5-nano',
    name: 'OpenAI: GPT-5 Nano',
    description: 'The smallest GPT-5, for classification, extraction and routing at high volume.',
    contextLength: 400_000,
    maxOutputTokens: 128_000,
    capabilities: [...FULL, 'reasoning'],
    aliases: ['gpt-5-nano-2025-08-07'],
    created: utc('2025-08-07'),
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5-nano',
        pricing: GPT_5_NANO,
        dataCollection: 'deny',
        excludeParameters: OPENAI_REASONING_UNSUPPORTED,
      },
    ],
  },
  {
    id: 'openai/gpt-4.1',
    name: 'OpenAI: GPT-4.1',
    description: 'Non-reasoning model strong at instruction following and tool calling, with a 1M-token context.',
    contextLength: 1_047_576,
    maxOutputTokens: 32_768,
    capabilities: [...FULL],
    aliases: ['gpt-4.1-2025-04-14'],
    created: utc('2025-04-14'),
    endpoints: [
      { provider: 'openai', model: 'gpt-4.1', pricing: GPT_4_1, dataCollection: 'deny' },
      viaOpenRouter('openai/gpt-4.1', GPT_4_1),
    ],
  },
  {
    id: 'openai/gpt-4.1-mini',
    name: 'OpenAI: GPT-4.1 Mini',
    description: 'Smaller GPT-4.1 with the same 1M-token context at a fraction of the price.',
    contextLength: 1_047_576,
    maxOutputTokens: 32_768,
    capabilities: [...FULL],
    aliases: ['gpt-4.1-mini-2025-04-14'],
    created: utc('2025-04-14'),
    endpoints: [
      { provider: 'openai', model: 'gpt-4.1-mini', pricing: GPT_4_1_MINI, dataCollection: 'deny' },
      viaOpenRouter('openai/gpt-4.1-mini', GPT_4_1_MINI),
    ],
  },
  {
    id: 'openai/gpt-4.1-nano',
    name: 'OpenAI: GPT-4.1 Nano',
    description: 'The fastest and cheapest GPT-4.1.',
    contextLength: 1_047_576,
    maxOutputTokens: 32_768,
    capabilities: [...FULL],
    aliases: ['gpt-4.1-nano-2025-04-14'],
    created: utc('2025-04-14'),
    endpoints: [{ provider: 'openai', model: 'gpt-4.1-nano', pricing: GPT_4_1_NANO, dataCollection: 'deny' }],
  },
  {
    id: 'openai/gpt-4o',
    name: 'OpenAI: GPT-4o',
    description: "OpenAI's versatile multimodal model.",
    contextLength: 128_000,
    maxOutputTokens: 16_384,
    capabilities: [...FULL],
    aliases: ['gpt-4o-2024-08-06'],
    created: utc('2024-05-13'),
    endpoints: [{ provider: 'openai', model: 'gpt-4o', pricing: GPT_4O, dataCollection: 'deny' }],
  },
  {
    id: 'openai/gpt-4o-mini',
    name: 'OpenAI: GPT-4o-mini',
    description: 'Small, fast and cheap multimodal model.',
    contextLength: 128_000,
    maxOutputTokens: 16_384,
    capabilities: [...FULL],
    aliases: ['gpt-4o-mini-2024-07-18'],
    created: utc('2024-07-18'),
    endpoints: [
      { provider: 'openai', model: 'gpt-4o-mini', pricing: GPT_4O_MINI, dataCollection: 'deny' },
      viaOpenRouter('openai/gpt-4o-mini', GPT_4O_MINI),
    ],
  },
  {
    id: 'openai/o4-mini',
    name: 'OpenAI: o4-mini',
    description: 'Compact reasoning model, strong at math, coding and visual tasks.',
    contextLength: 200_000,
    maxOutputTokens: 100_000,
    capabilities: [...FULL, 'reasoning'],
    aliases: ['o4-mini-2025-04-16'],
    created: utc('2025-04-16'),
    endpoints: [
      { provider: 'openai', model: 'o4-mini', pricing: O4_MINI, dataCollection: 'deny', excludeParameters: OPENAI_REASONING_UNSUPPORTED },
      viaOpenRouter('openai/o4-mini', O4_MINI, { excludeParameters: OPENAI_REASONING_UNSUPPORTED }),
    ],
  },
  {
    id: 'openai/o3',
    name: 'OpenAI: o3',
    description: "OpenAI's full o-series reasoning model.",
    contextLength: 200_000,
    maxOutputTokens: 100_000,
    capabilities: [...FULL, 'reasoning'],
    aliases: ['o3-2025-04-16'],
    created: utc('2025-04-16'),
    endpoints: [{ provider: 'openai', model: 'o3', pricing: O3, dataCollection: 'deny', excludeParameters: OPENAI_REASONING_UNSUPPORTED }],
  },
  {
    id: 'openai/gpt-oss-120b',
    name: 'OpenAI: gpt-oss-120b',
    description: "OpenAI's open-weight 117B mixture-of-experts reasoning model (MXFP4 weights), served by fast inference hosts.",
    contextLength: 131_072,
    capabilities: ['text', 'tool_calling', 'json_mode', 'structured_outputs', 'streaming', 'reasoning'],
    aliases: [],
    created: utc('2025-08-05'),
    endpoints: [
      {
        provider: 'groq',
        model: 'openai/gpt-oss-120b',
        pricing: GPT_OSS_120B,
        maxOutputTokens: 65_536,
        quantization: 'fp4',
        dataCollection: 'deny',
      },
      { provider: 'together', model: 'openai/gpt-oss-120b', pricing: GPT_OSS_120B, quantization: 'fp4', dataCollection: 'deny' },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/gpt-oss-120b',
        pricing: GPT_OSS_120B,
        quantization: 'fp4',
        dataCollection: 'deny',
      },
    ],
  },
];
