import type { ImageTask } from '../../canonical/task.ts';
import { invalidParameter } from '../../errors/gateway-error.ts';

// What each OpenAI image model family takes, checked before the call so a request it would
// refuse is a clear 400 naming the parameter (OpenAI's own rules). A model of no known
// family (another vendor's OpenAI-compatible image server) is sent what the client asked.

export type ImageFamily = 'gpt-image' | 'dall-e-3' | 'dall-e-2' | 'other';

interface FamilyRules {
  sizes: ReadonlySet<string>;
  qualities: ReadonlySet<string>;
  maxN: number;
  edits: boolean;
  /** output_format, output_compression, background, moderation, input_fidelity. */
  gptImageOptions: boolean;
  style: boolean;
}

const RULES: Record<Exclude<ImageFamily, 'other'>, FamilyRules> = {
  'gpt-image': {
    sizes: new Set(['auto', '1024x1024', '1536x1024', '1024x1536']),
    qualities: new Set(['auto', 'low', 'medium', 'high']),
    maxN: 10,
    edits: true,
    gptImageOptions: true,
    style: false,
  },
  'dall-e-3': {
    sizes: new Set(['1024x1024', '1792x1024', '1024x1792']),
    qualities: new Set(['auto', 'standard', 'hd']),
    maxN: 1,
    edits: false,
    gptImageOptions: false,
    style: true,
  },
  'dall-e-2': {
    sizes: new Set(['256x256', '512x512', '1024x1024']),
    qualities: new Set(['auto', 'standard']),
    maxN: 10,
    edits: true,
    gptImageOptions: false,
    style: false,
  },
};

export function imageFamily(upstreamModel: string): ImageFamily {
  if (/^(gpt-image|chatgpt-image)/.test(upstreamModel)) return 'gpt-image';
  if (upstreamModel.startsWith('dall-e-3')) return 'dall-e-3';
  if (upstreamModel.startsWith('dall-e-2')) return 'dall-e-2';
  return 'other';
}

/** Throws a 400 (invalid_parameter) for what the family does not take. */
export function checkImageTask(task: ImageTask, family: ImageFamily, upstreamModel: string): void {
  if (family === 'other') return;
  const rules = RULES[family];
  const refuse = (param: string, rule: string): never => {
    throw invalidParameter(param, `Invalid '${param}' for ${upstreamModel}: ${rule}.`);
  };
  if (task.operation === 'edit' && !rules.edits) refuse('model', 'this model does not edit images (use gpt-image-1 or dall-e-2)');
  if (task.n > rules.maxN) refuse('n', `at most ${rules.maxN} image${rules.maxN === 1 ? '' : 's'} a request`);
  if (task.size !== undefined && !rules.sizes.has(task.size)) refuse('size', `one of ${[...rules.sizes].join(', ')}`);
  if (task.quality !== undefined && !rules.qualities.has(task.quality)) refuse('quality', `one of ${[...rules.qualities].join(', ')}`);
  if (!rules.style && task.style !== undefined) refuse('style', 'supported by dall-e-3 only');
  if (!rules.gptImageOptions) {
    for (const [param, value] of [
      ['output_format', task.outputFormat],
      ['output_compression', task.outputCompression],
      ['background', task.background],
      ['moderation', task.moderation],
      ['input_fidelity', task.inputFidelity],
    ] as const) {
      if (value !== undefined) refuse(param, 'supported by the GPT image models only');
    }
  }
  if (family === 'dall-e-2' && task.operation === 'edit' && (task.images?.length ?? 0) > 1)
    refuse('image', 'dall-e-2 edits one square PNG image');
}
