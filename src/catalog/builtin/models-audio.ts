import type { BuiltinModel } from './builtin-types.ts';
import { utc } from './shared.ts';

// Speech and transcription models at list prices (docs/audio.md): per character (tts-1),
// per second of audio (whisper), or per token as the vendor bills them (gpt-4o-mini-tts,
// gpt-4o-transcribe: their audio tokens at `prompt`/`completion`; the hold's bound is in
// billing/audio-bounds.ts). Groq lists whisper per hour: the price per second is that over
// 3,600, cut at the atto-dollar.

const NO_TOKENS = { prompt: '0', completion: '0' } as const;

export const AUDIO_MODELS: readonly BuiltinModel[] = [
  {
    id: 'openai/tts-1',
    kind: 'speech',
    name: 'OpenAI: TTS-1',
    description: 'Text to speech optimized for speed, $15 per million characters.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: ['tts-1'],
    created: utc('2023-11-06'),
    endpoints: [{ provider: 'openai', model: 'tts-1', pricing: { ...NO_TOKENS, character: '0.000015' }, dataCollection: 'deny' }],
  },
  {
    id: 'openai/tts-1-hd',
    kind: 'speech',
    name: 'OpenAI: TTS-1 HD',
    description: 'Text to speech optimized for quality, $30 per million characters.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: ['tts-1-hd'],
    created: utc('2023-11-06'),
    endpoints: [{ provider: 'openai', model: 'tts-1-hd', pricing: { ...NO_TOKENS, character: '0.00003' }, dataCollection: 'deny' }],
  },
  {
    id: 'openai/gpt-4o-mini-tts',
    kind: 'speech',
    name: 'OpenAI: GPT-4o mini TTS',
    description:
      'Steerable text to speech (`instructions`), billed per token: $0.60 per million text tokens in, $12 per million audio tokens out.',
    contextLength: 2_000,
    capabilities: ['text'],
    aliases: ['gpt-4o-mini-tts'],
    created: utc('2025-03-20'),
    endpoints: [
      { provider: 'openai', model: 'gpt-4o-mini-tts', pricing: { prompt: '0.0000006', completion: '0.000012' }, dataCollection: 'deny' },
    ],
  },
  {
    id: 'openai/whisper-1',
    kind: 'transcription',
    name: 'OpenAI: Whisper',
    description: 'Speech to text and translation to English, $0.006 per minute (billed per second).',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: ['whisper-1'],
    created: utc('2023-03-01'),
    endpoints: [{ provider: 'openai', model: 'whisper-1', pricing: { ...NO_TOKENS, audio_second: '0.0001' }, dataCollection: 'deny' }],
  },
  {
    id: 'openai/gpt-4o-transcribe',
    kind: 'transcription',
    name: 'OpenAI: GPT-4o Transcribe',
    description: 'Speech to text billed per token: $6 per million audio tokens in, $10 per million text tokens out.',
    contextLength: 16_000,
    maxOutputTokens: 2_000,
    capabilities: ['text'],
    aliases: ['gpt-4o-transcribe'],
    created: utc('2025-03-20'),
    endpoints: [
      { provider: 'openai', model: 'gpt-4o-transcribe', pricing: { prompt: '0.000006', completion: '0.00001' }, dataCollection: 'deny' },
    ],
  },
  {
    id: 'openai/gpt-4o-mini-transcribe',
    kind: 'transcription',
    name: 'OpenAI: GPT-4o mini Transcribe',
    description: 'Speech to text billed per token: $3 per million audio tokens in, $5 per million text tokens out.',
    contextLength: 16_000,
    maxOutputTokens: 2_000,
    capabilities: ['text'],
    aliases: ['gpt-4o-mini-transcribe'],
    created: utc('2025-03-20'),
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4o-mini-transcribe',
        pricing: { prompt: '0.000003', completion: '0.000005' },
        dataCollection: 'deny',
      },
    ],
  },
  {
    id: 'openai/whisper-large-v3',
    kind: 'transcription',
    name: 'Whisper Large v3 (Groq)',
    description: "OpenAI's open Whisper Large v3 on Groq: transcription and translation, $0.111 per hour.",
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: ['whisper-large-v3'],
    created: utc('2023-11-08'),
    endpoints: [
      {
        provider: 'groq',
        model: 'whisper-large-v3',
        pricing: { ...NO_TOKENS, audio_second: '0.000030833333333333' },
        dataCollection: 'deny',
      },
    ],
  },
  {
    id: 'openai/whisper-large-v3-turbo',
    kind: 'transcription',
    name: 'Whisper Large v3 Turbo (Groq)',
    description: 'The faster Whisper Large v3 Turbo on Groq: transcription only, $0.04 per hour.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: ['whisper-large-v3-turbo'],
    created: utc('2024-10-01'),
    endpoints: [
      {
        provider: 'groq',
        model: 'whisper-large-v3-turbo',
        pricing: { ...NO_TOKENS, audio_second: '0.000011111111111111' },
        dataCollection: 'deny',
      },
    ],
  },
];
