import type { StreamPart } from '../../canonical/stream-part.ts';
import type { ImageResult, ImageTask } from '../../canonical/task.ts';
import { estimateTextTokens } from '../../canonical/estimate-tokens.ts';
import { taskUsage } from '../tasks/task-answers.ts';
import { simPng } from './sim-png.ts';

/**
 * The sim's images: `n` small real PNGs, each drawn from the prompt, its index and (for an
 * edit) the input images' bytes, so a test can check exact bytes. Always PNG, whatever
 * `output_format`; the answer echoes the size, quality and background asked for.
 */
export function simImages(task: ImageTask): StreamPart[] {
  const edited = task.images === undefined ? '' : task.images.map((f) => f.data.toString('base64')).join(',');
  const images = [];
  for (let i = 0; i < task.n; i++) images.push({ b64: simPng(simImageSeed(task.prompt, i, edited)).toString('base64') });
  const result: ImageResult = {
    kind: 'image',
    images,
    outputFormat: 'png',
    size: task.size === undefined || task.size === 'auto' ? '1024x1024' : task.size,
  };
  if (task.quality !== undefined && task.quality !== 'auto') result.quality = task.quality;
  if (task.background !== undefined) result.background = task.background;
  return [
    { type: 'task-result', result },
    { type: 'usage', usage: taskUsage(estimateTextTokens(task.prompt), 0) },
    { type: 'finish', reason: { unified: 'stop', raw: null } },
  ];
}

/** What a sim image is drawn from: the prompt, the image's index, an edit's inputs. */
export function simImageSeed(prompt: string, index: number, edited = ''): string {
  return `${prompt}\u0000${index}\u0000${edited}`;
}
