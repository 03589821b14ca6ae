import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { utc, viaOpenRouter } from './shared.ts';

// Gemini API list prices (USD per token) for prompts up to 200k tokens; 2.5 Pro costs
// more above that, which a flat per-token price cannot express. Implicit caching bills
// reads at 10% of input and nothing extra for writes.

const PRO_2_5: PricingSpec = { prompt: '0.00000125', completion: '0.00001', cache_read: '0.000000125' }; // $1.25 / $10 per M
const FLASH_2_5: PricingSpec = { prompt: '0.0000003', completion: '0.0000025', cache_read: '0.00000003' }; // $0.30 / $2.50
const FLASH_LITE_2_5: PricingSpec = { prompt: '0.0000001', completion: '0.0000004', cache_read: '0.00000001' }; // $0.10 / $0.40

// The native adapter sends images, PDFs and audio inline.
const GEMINI = [
  'text',
  'tool_calling',
  'json_mode',
  'structured_outputs',
  'streaming',
  'multimodal',
  'audio_input',
  'pdf_input',
  'reasoning',
] as const;

export const GOOGLE_MODELS: readonly BuiltinModel[] = [
  {
    id: 'google/gemini-2.5-pro',
    name: 'Google: Gemini 2.5 Pro',
    description: "Google's thinking model for complex reasoning and coding, with a 1M-token context.",
    contextLength: 1_048_576,
    maxOutputTokens: 65_536,
    capabilities: [...GEMINI],
    aliases: [],
    created: utc('2025-06-17'),
    endpoints: [
      { provider: 'google', model: 'gemini-2.5-pro', pricing: PRO_2_5, dataCollection: 'deny' },
      viaOpenRouter('google/gemini-2.5-pro', PRO_2_5),
    ],
  },
  {
    id: 'google/gemini-2.5-flash',
    name: 'Google: Gemini 2.5 Flash',
    description: 'Fast, price-efficient Gemini with controllable thinking.',
    contextLength: 1_048_576,
    maxOutputTokens: 65_536,
    capabilities: [...GEMINI],
    aliases: [],
    created: utc('2025-06-17'),
    endpoints: [
      { provider: 'google', model: 'gemini-2.5-flash', pricing: FLASH_2_5, dataCollection: 'deny' },
      viaOpenRouter('google/gemini-2.5-flash', FLASH_2_5),
    ],
  },
  {
    id: 'google/gemini-2.5-flash-lite',
    name: 'Google: Gemini 2.5 Flash-Lite',
    description: 'The fastest and cheapest Gemini 2.5, for high-volume, latency-sensitive work.',
    contextLength: 1_048_576,
    maxOutputTokens: 65_536,
    capabilities: [...GEMINI],
    aliases: [],
    created: utc('2025-07-22'),
    endpoints: [
      { provider: 'google', model: 'gemini-2.5-flash-lite', pricing: FLASH_LITE_2_5, dataCollection: 'deny' },
      viaOpenRouter('google/gemini-2.5-flash-lite', FLASH_LITE_2_5),
    ],
  },
];
