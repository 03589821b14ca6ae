import { assertNever } from '../canonical/assert-never.ts';
import type { TaskRequest, TaskResult } from '../canonical/task.ts';
import type { Usage } from '../canonical/usage.ts';
import type { Endpoint } from '../catalog/types.ts';
import type { Attos } from '../money/money.ts';
import { audioSeconds } from './compute-cost.ts';
import { imageOutputWorstPrice } from '../money/image-prices.ts';
import { setImageUnits } from './image-units.ts';
import { speechOutputTokensBound, transcriptionInputTokensBound } from './audio-bounds.ts';

// What a task request costs beyond its prompt tokens: images generated, characters
// synthesized, seconds transcribed. The units are counted by the gateway from the request and
// the answer (a vendor's usage object does not carry them), and bounded before the call for
// the hold (docs/billing.md, "Embeddings, images and audio").

/**
 * Sets a task's billed units on its usage: the images the answer holds, the characters of
 * the speech input, the seconds of audio transcribed (the duration read from the file's
 * header, else the one the upstream reported).
 */
export function addTaskUnits(usage: Usage, task: TaskRequest, result: TaskResult | null): void {
  switch (task.kind) {
    case 'embedding':
      return;
    case 'image':
      setImageUnits(usage, task, result);
      return;
    case 'speech':
      usage.characters = task.input.length;
      return;
    case 'transcription': {
      const reported = result?.kind === 'transcription' && result.duration !== undefined ? Math.round(result.duration * 1000) : null;
      usage.audioMs = task.durationMs ?? reported ?? 0;
      return;
    }
    default:
      assertNever(task);
  }
}

/**
 * The most a task's own units can cost on this endpoint, on top of its prompt tokens: `n`
 * images at the image price, every character of the input, the audio's duration (a file
 * whose duration could not be read is refused before this, or held at the documented
 * maximum: see front/…/transcription decoding).
 */
export function taskUnitsWorstCase(task: TaskRequest, endpoint: Endpoint): Attos {
  const p = endpoint.compiledPricing;
  switch (task.kind) {
    case 'embedding':
      return 0n;
    case 'image':
      return BigInt(task.n) * imageOutputWorstPrice(p, task.size, task.quality);
    case 'speech':
      return BigInt(task.input.length) * p.character;
    case 'transcription':
      // Per second, and for models billed per token the audio's input tokens (audio-bounds.ts).
      return BigInt(audioSeconds(task.durationMs ?? 0)) * p.audioSecond + BigInt(transcriptionInputTokensBound(task)) * p.prompt;
  }
}

/**
 * The output tokens one image is held for on an image endpoint that states no
 * `max_output_tokens`: above gpt-image-1's largest (6,240 at 1536x1024, high) and Gemini's 1,290.
 */
export const IMAGE_OUTPUT_TOKENS_BOUND = 8_192;

/**
 * The most output tokens a task can produce on this endpoint (image and audio tokens, a
 * transcript's tokens), for models that bill them per token: the request's own bound, else
 * the endpoint's `max_output_tokens`, else none.
 */
export function taskOutputTokensBound(task: TaskRequest, endpoint: Endpoint): number {
  if (task.kind === 'embedding') return 0;
  // An image model's max_output_tokens is per image (its largest size at its best quality).
  if (task.kind === 'image') return task.n * (endpoint.maxOutputTokens ?? IMAGE_OUTPUT_TOKENS_BOUND);
  if (task.kind === 'speech') return endpoint.maxOutputTokens ?? speechOutputTokensBound(task);
  return endpoint.maxOutputTokens ?? 0;
}
