import type { ImageTask, TaskResult } from '../canonical/task.ts';
import type { Usage } from '../canonical/usage.ts';

/**
 * An image answer's billed units: the images it holds, and the size and quality they are
 * priced by (money/image-prices.ts). What the request fixed wins (the hold was priced on
 * it, so the charge never exceeds it); a side it left open (absent or `auto`) takes what
 * the answer says it made.
 */
export function setImageUnits(usage: Usage, task: ImageTask, result: TaskResult | null): void {
  const image = result?.kind === 'image' ? result : null;
  usage.imagesOutput = image === null ? 0 : image.images.length;
  const size = fixed(task.size) ?? fixed(image?.size);
  const quality = fixed(task.quality) ?? fixed(image?.quality);
  if (size !== undefined) usage.imageSize = size;
  if (quality !== undefined) usage.imageQuality = quality;
}

function fixed(value: string | undefined): string | undefined {
  return value === undefined || value === 'auto' || value === '' ? undefined : value;
}
