import type { SamplingParams } from '../../canonical/request.ts';
import { readNumber, type JsonObject, type NumberRange } from './read-fields.ts';

// The sampling fields of a request body → SamplingParams, validated against the spec's
// ranges; fields the client did not set stay absent. Every dialect takes `temperature` and
// `top_p`; the OpenAI dialects take the rest of the chat table too.

const TEMPERATURE: NumberRange = { min: 0, max: 2 };
const UNIT_INTERVAL: NumberRange = { min: 0, max: 1 };
const PENALTY: NumberRange = { min: -2, max: 2 };
const REPETITION_PENALTY: NumberRange = { min: 0, max: 2, minExclusive: true };
const TOP_K: NumberRange = { min: 0, integer: true };
const SEED: NumberRange = { integer: true };

/** `temperature` and `top_p`, which every dialect has. */
export function decodeCoreSampling(body: JsonObject): SamplingParams {
  const s: SamplingParams = {};
  const temperature = readNumber(body, 'temperature', TEMPERATURE);
  if (temperature !== undefined) s.temperature = temperature;
  const topP = readNumber(body, 'top_p', UNIT_INTERVAL);
  if (topP !== undefined) s.topP = topP;
  return s;
}

/** Every sampling field of the chat table but `logit_bias`, in the table's order. */
export function decodeSampling(body: JsonObject): SamplingParams {
  const s = decodeCoreSampling(body);
  const topK = readNumber(body, 'top_k', TOP_K);
  if (topK !== undefined) s.topK = topK;
  const minP = readNumber(body, 'min_p', UNIT_INTERVAL);
  if (minP !== undefined) s.minP = minP;
  const topA = readNumber(body, 'top_a', UNIT_INTERVAL);
  if (topA !== undefined) s.topA = topA;
  const frequencyPenalty = readNumber(body, 'frequency_penalty', PENALTY);
  if (frequencyPenalty !== undefined) s.frequencyPenalty = frequencyPenalty;
  const presencePenalty = readNumber(body, 'presence_penalty', PENALTY);
  if (presencePenalty !== undefined) s.presencePenalty = presencePenalty;
  const repetitionPenalty = readNumber(body, 'repetition_penalty', REPETITION_PENALTY);
  if (repetitionPenalty !== undefined) s.repetitionPenalty = repetitionPenalty;
  const seed = readNumber(body, 'seed', SEED);
  if (seed !== undefined) s.seed = seed;
  return s;
}
