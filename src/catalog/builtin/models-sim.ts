import type { BuiltinModel } from './builtin-types.ts';
import { utc } from './shared.ts';

// Models of the built-in simulated provider. Local and retaining nothing, so `deny` and
// ZDR; sim-pro and sim-reasoner carry small real prices so billing shows on a fresh install.

const SIM_BASE = ['text', 'tool_calling', 'json_mode', 'structured_outputs', 'streaming'] as const;

export const SIM_MODELS: readonly BuiltinModel[] = [
  {
    id: 'switchyard/sim-fast',
    name: 'Switchyard: Sim Fast',
    description: 'Simulated model, free: deterministic text, schema-fitting tool calls and JSON, streamed at a set pace.',
    contextLength: 128_000,
    maxOutputTokens: 16_384,
    capabilities: [...SIM_BASE],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [{ provider: 'sim', model: 'sim-fast', pricing: { prompt: '0', completion: '0' }, dataCollection: 'deny', zdr: true }],
  },
  {
    id: 'switchyard/sim-pro',
    name: 'Switchyard: Sim Pro',
    description: 'Simulated model with small nonzero prices ($1 / $2 per million tokens), so credits and usage move.',
    contextLength: 200_000,
    maxOutputTokens: 32_768,
    capabilities: [...SIM_BASE],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      { provider: 'sim', model: 'sim-pro', pricing: { prompt: '0.000001', completion: '0.000002' }, dataCollection: 'deny', zdr: true },
    ],
  },
  {
    id: 'switchyard/sim-reasoner',
    name: 'Switchyard: Sim Reasoner',
    description: 'Simulated reasoning model: streams reasoning before its answer ($2 / $8 per million tokens).',
    contextLength: 200_000,
    maxOutputTokens: 65_536,
    capabilities: [...SIM_BASE, 'reasoning'],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      {
        provider: 'sim',
        model: 'sim-reasoner',
        pricing: { prompt: '0.000002', completion: '0.000008' },
        dataCollection: 'deny',
        zdr: true,
      },
    ],
  },
  {
    id: 'switchyard/sim-embed',
    kind: 'embedding',
    name: 'Switchyard: Sim Embed',
    description: 'Simulated embedding model: deterministic unit vectors (256 dimensions, or `dimensions`) at $0.02 per million tokens.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      { provider: 'sim', model: 'sim-embed', pricing: { prompt: '0.00000002', completion: '0' }, dataCollection: 'deny', zdr: true },
    ],
  },
  {
    id: 'switchyard/sim-image',
    kind: 'image',
    name: 'Switchyard: Sim Image',
    description: 'Simulated image model: small real PNGs drawn from the prompt, $0.001 an image ($0.004 at quality high).',
    contextLength: 32_000,
    capabilities: ['text', 'multimodal'],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      {
        provider: 'sim',
        model: 'sim-image',
        dataCollection: 'deny',
        zdr: true,
        pricing: { prompt: '0', completion: '0', image_output: '0.001', image_output_by: { '*/high': '0.004' } },
      },
    ],
  },
  {
    id: 'switchyard/sim-speech',
    kind: 'speech',
    name: 'Switchyard: Sim Speech',
    description: 'Simulated text to speech: a real WAV drawn from the text (60 ms a character), $30 per million characters.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      {
        provider: 'sim',
        model: 'sim-speech',
        pricing: { prompt: '0', completion: '0', character: '0.00003' },
        dataCollection: 'deny',
        zdr: true,
      },
    ],
  },
  {
    id: 'switchyard/sim-transcribe',
    kind: 'transcription',
    name: 'Switchyard: Sim Transcribe',
    description:
      'Simulated speech to text: hears back what the sim voice said, timed over the duration read from the file, $0.0001 a second.',
    contextLength: 8_192,
    capabilities: ['text'],
    aliases: [],
    created: utc('2026-01-01'),
    endpoints: [
      {
        provider: 'sim',
        model: 'sim-transcribe',
        pricing: { prompt: '0', completion: '0', audio_second: '0.0001' },
        dataCollection: 'deny',
        zdr: true,
      },
    ],
  },
];
