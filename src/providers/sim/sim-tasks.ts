import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { assertNever, type StreamPart } from '../../canonical/stream-part.ts';
import type { EmbeddingTask, TaskRequest } from '../../canonical/task.ts';
import { estimateTextTokens } from '../../canonical/estimate-tokens.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { taskUsage } from '../tasks/task-answers.ts';
import { simImages } from './sim-images.ts';
import { simSpeech, simTranscription } from './sim-audio.ts';

// The sim's task models: deterministic answers with no credentials, so every endpoint of
// docs/modalities.md works on a fresh install and tests can check exact values.

/** Dimensions of a sim embedding when the request names none. */
export const SIM_EMBEDDING_DIMENSIONS = 256;

export function simTaskParts(_req: CanonicalRequest, task: TaskRequest, _endpoint: Endpoint): StreamPart[] {
  switch (task.kind) {
    case 'embedding':
      return simEmbeddings(task);
    case 'image':
      return simImages(task);
    case 'speech':
      return simSpeech(task);
    case 'transcription':
      return simTranscription(task);
    default:
      return assertNever(task);
  }
}

/**
 * The most numbers (inputs × dimensions) the sim draws for one request: 2,048 inputs of 512,
 * or 256 inputs of 4,096. Drawing and encoding them runs on the event loop (about a second
 * for 4 million), so a larger request is refused rather than stall every other one.
 */
export const SIM_EMBEDDING_MAX_NUMBERS = 1_048_576;

function simEmbeddings(task: EmbeddingTask): StreamPart[] {
  const dims = task.dimensions ?? SIM_EMBEDDING_DIMENSIONS;
  if (dims * task.input.length > SIM_EMBEDDING_MAX_NUMBERS) {
    const error = new GatewayError(
      'invalid_parameter',
      `The sim draws at most ${SIM_EMBEDDING_MAX_NUMBERS} numbers a request (inputs × dimensions): ${task.input.length} × ${dims} is more. Send fewer inputs or dimensions.`,
      { param: 'dimensions' },
    );
    return [{ type: 'error', error }];
  }
  let tokens = 0;
  const vectors = task.input.map((input) => {
    const text = typeof input === 'string' ? input : input.join(' ');
    tokens += typeof input === 'string' ? estimateTextTokens(input) : input.length;
    return simVector(text, dims);
  });
  return [
    { type: 'task-result', result: { kind: 'embedding', vectors } },
    { type: 'usage', usage: taskUsage(tokens, 0) },
    { type: 'finish', reason: { unified: 'stop', raw: null } },
  ];
}

/** A unit vector drawn from SHA-256 of the text: the same text always embeds the same. */
export function simVector(text: string, dims: number): number[] {
  const out = new Array<number>(dims);
  let block = Buffer.alloc(0);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const at = (i * 2) % 32;
    if (at === 0) block = createHash('sha256').update(text).update(String(i)).digest();
    const x = block.readInt16LE(at) / 32768;
    out[i] = x;
    norm += x * x;
  }
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) out[i] = Math.round(out[i]! * scale * 1e6) / 1e6;
  return out;
}
