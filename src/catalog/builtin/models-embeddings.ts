import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { utc, viaOpenRouter } from './shared.ts';

// Embedding models of the built-in providers, at list prices per input token (an embedding
// produces no output tokens). Vertex and Bedrock serve embeddings too (gemini-embedding-001,
// Titan Text Embeddings v2, Cohere Embed), but they are not built-in providers: an operator
// declares them with a project or region (docs/embeddings.md).

const EMBED_3_SMALL: PricingSpec = { prompt: '0.00000002', completion: '0' }; // $0.02 per M
const EMBED_3_LARGE: PricingSpec = { prompt: '0.00000013', completion: '0' }; // $0.13
const ADA_002: PricingSpec = { prompt: '0.0000001', completion: '0' }; // $0.10
const GEMINI_EMBEDDING: PricingSpec = { prompt: '0.00000015', completion: '0' }; // $0.15
const MISTRAL_EMBED: PricingSpec = { prompt: '0.0000001', completion: '0' }; // $0.10

export const EMBEDDING_MODELS: readonly BuiltinModel[] = [
  {
    id: 'openai/text-embedding-3-small',
    kind: 'embedding',
    name: 'OpenAI: Text Embedding 3 Small',
    description: "OpenAI's small embedding model: 1,536 dimensions (or fewer with `dimensions`).",
    contextLength: 8_191,
    capabilities: ['text'],
    aliases: [],
    created: utc('2024-01-25'),
    endpoints: [
      { provider: 'openai', model: 'text-embedding-3-small', pricing: EMBED_3_SMALL, dataCollection: 'deny' },
      viaOpenRouter('openai/text-embedding-3-small', EMBED_3_SMALL),
    ],
  },
  {
    id: 'openai/text-embedding-3-large',
    kind: 'embedding',
    name: 'OpenAI: Text Embedding 3 Large',
    description: "OpenAI's large embedding model: 3,072 dimensions (or fewer with `dimensions`).",
    contextLength: 8_191,
    capabilities: ['text'],
    aliases: [],
    created: utc('2024-01-25'),
    endpoints: [
      { provider: 'openai', model: 'text-embedding-3-large', pricing: EMBED_3_LARGE, dataCollection: 'deny' },
      viaOpenRouter('openai/text-embedding-3-large', EMBED_3_LARGE),
    ],
  },
  {
    id: 'openai/text-embedding-ada-002',
    kind: 'embedding',
    name: 'OpenAI: Text Embedding Ada 002',
    description: "OpenAI's previous embedding model: 1,536 dimensions, fixed.",
    contextLength: 8_191,
    capabilities: ['text'],
    aliases: [],
    created: utc('2022-12-15'),
    endpoints: [
      { provider: 'openai', model: 'text-embedding-ada-002', pricing: ADA_002, dataCollection: 'deny' },
      viaOpenRouter('openai/text-embedding-ada-002', ADA_002),
    ],
  },
  {
    id: 'google/gemini-embedding-001',
    kind: 'embedding',
    name: 'Google: Gemini Embedding 001',
    description: "Google's Gemini embedding model: 3,072 dimensions (768 and 1,536 recommended with `dimensions`), 2,048 input tokens.",
    contextLength: 2_048,
    capabilities: ['text'],
    aliases: [],
    created: utc('2025-07-14'),
    endpoints: [{ provider: 'google', model: 'gemini-embedding-001', pricing: GEMINI_EMBEDDING, dataCollection: 'deny' }],
  },
  {
    id: 'mistralai/mistral-embed',
    kind: 'embedding',
    name: 'Mistral: Mistral Embed',
    description: "Mistral's embedding model: 1,024 dimensions.",
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: [],
    created: utc('2023-12-11'),
    endpoints: [{ provider: 'mistral', model: 'mistral-embed', pricing: MISTRAL_EMBED, dataCollection: 'deny' }],
  },
];
