import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { utc, viaOpenRouter } from './shared.ts';

// Anthropic list prices (USD per token); cache writes are the 5-minute rate (1.25x input)
// and reads 0.1x input, stated so the OpenRouter endpoints (no cache family) price alike.
// Structured outputs go to Anthropic as `output_config.format`; JSON mode, which Anthropic
// lacks, is asked for in the system prompt (providers/anthropic/convert-to-anthropic-request.ts).

const SONNET_4_5: PricingSpec = { prompt: '0.000003', completion: '0.000015', cache_write: '0.00000375', cache_read: '0.0000003' }; // $3 / $15 per M
const HAIKU_4_5: PricingSpec = { prompt: '0.000001', completion: '0.000005', cache_write: '0.00000125', cache_read: '0.0000001' }; // $1 / $5
const OPUS_4_5: PricingSpec = { prompt: '0.000005', completion: '0.000025', cache_write: '0.00000625', cache_read: '0.0000005' }; // $5 / $25
const OPUS_4_1: PricingSpec = { prompt: '0.000015', completion: '0.000075', cache_write: '0.00001875', cache_read: '0.0000015' }; // $15 / $75

const CLAUDE = ['text', 'tool_calling', 'json_mode', 'structured_outputs', 'streaming', 'multimodal', 'reasoning', 'pdf_input'] as const;

export const ANTHROPIC_MODELS: readonly BuiltinModel[] = [
  {
    id: 'anthropic/claude-sonnet-4.5',
    name: 'Anthropic: Claude Sonnet 4.5',
    description: "Anthropic's Sonnet for agents and coding, with extended thinking.",
    contextLength: 200_000,
    maxOutputTokens: 64_000,
    capabilities: [...CLAUDE],
    aliases: ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'],
    created: utc('2025-09-29'),
    endpoints: [
      { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', pricing: SONNET_4_5, dataCollection: 'deny' },
      viaOpenRouter('anthropic/claude-sonnet-4.5', SONNET_4_5),
    ],
  },
  {
    id: 'anthropic/claude-haiku-4.5',
    name: 'Anthropic: Claude Haiku 4.5',
    description: "Anthropic's fastest model, near-frontier on coding, with extended thinking.",
    contextLength: 200_000,
    maxOutputTokens: 64_000,
    capabilities: [...CLAUDE],
    aliases: ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
    created: utc('2025-10-15'),
    endpoints: [
      { provider: 'anthropic', model: 'claude-haiku-4-5-20251001', pricing: HAIKU_4_5, dataCollection: 'deny' },
      viaOpenRouter('anthropic/claude-haiku-4.5', HAIKU_4_5),
    ],
  },
  {
    id: 'anthropic/claude-opus-4.5',
    name: 'Anthropic: Claude Opus 4.5',
    description: "Anthropic's Opus for the hardest reasoning and long-horizon agentic work.",
    contextLength: 200_000,
    maxOutputTokens: 64_000,
    capabilities: [...CLAUDE],
    aliases: ['claude-opus-4-5', 'claude-opus-4-5-20251101'],
    created: utc('2025-11-24'),
    endpoints: [
      { provider: 'anthropic', model: 'claude-opus-4-5-20251101', pricing: OPUS_4_5, dataCollection: 'deny' },
      viaOpenRouter('anthropic/claude-opus-4.5', OPUS_4_5),
    ],
  },
  {
    // Retired on Anthropic's own API (its pricing page, 2026) but still served on Bedrock and
    // Vertex, which OpenRouter reaches; kept because clients pin it.
    id: 'anthropic/claude-opus-4.1',
    name: 'Anthropic: Claude Opus 4.1',
    description: 'Previous-generation Opus at the older $15 / $75 price tier.',
    contextLength: 200_000,
    maxOutputTokens: 32_000,
    capabilities: [...CLAUDE],
    aliases: ['claude-opus-4-1', 'claude-opus-4-1-20250805'],
    created: utc('2025-08-05'),
    endpoints: [viaOpenRouter('anthropic/claude-opus-4.1', OPUS_4_1)],
  },
];
