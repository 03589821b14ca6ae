import type { CanonicalRequest } from '../../canonical/request.ts';
import type { EmbeddingTask } from '../../canonical/task.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { readEndUser } from '../shared/decode-client-strings.ts';
import { invalidType, invalidValue, isObject, missingParameter, readEnum, readNumber, type JsonObject } from '../shared/read-fields.ts';
import { checkJsonDepth } from '../shared/check-json-depth.ts';

// OpenAI's embeddings request (`POST /v1/embeddings`) → the canonical request with an
// embedding task. Like chat: `models`/`fallbacks`, `provider` preferences and `user`.

/** OpenAI's own limit: at most 2,048 inputs per request. */
export const MAX_EMBEDDING_INPUTS = 2048;

const KNOWN = new Set(['model', 'models', 'fallbacks', 'input', 'encoding_format', 'dimensions', 'user', 'provider']);
const FORMATS: ReadonlySet<'float' | 'base64'> = new Set(['float', 'base64']);

export function decodeEmbeddingsRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw invalidType('body', 'a JSON object', body);
  checkJsonDepth(body);
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key)) throw invalidValue(key, `unknown parameter for embeddings (accepted: ${[...KNOWN].join(', ')})`);
  }
  const task: EmbeddingTask = {
    kind: 'embedding',
    input: decodeInput(body),
    encodingFormat: readEnum(body, 'encoding_format', FORMATS) ?? 'float',
  };
  const dimensions = readNumber(body, 'dimensions', { min: 1, max: 65_536, integer: true });
  if (dimensions !== undefined) task.dimensions = dimensions;
  const req: CanonicalRequest = { models: decodeModelList(body), messages: [], sampling: {}, stream: false, extra: {}, task };
  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  const user = readEndUser(body, 'user');
  if (user !== undefined) req.user = user;
  return req;
}

/** A string, a list of strings, a token array, or a list of token arrays; never empty. */
function decodeInput(body: JsonObject): string[] | number[][] {
  const input = body.input;
  if (input === undefined || input === null) throw missingParameter('input');
  if (typeof input === 'string') return [nonEmpty(input, 'input')];
  if (!Array.isArray(input)) throw invalidType('input', 'a string, an array of strings, or an array of token arrays', input);
  if (input.length === 0) throw invalidValue('input', 'must not be an empty array');
  if (input.length > MAX_EMBEDDING_INPUTS && typeof input[0] !== 'number') {
    throw invalidValue('input', `at most ${MAX_EMBEDDING_INPUTS} inputs per request, got ${input.length}`);
  }
  const first: unknown = input[0];
  if (typeof first === 'string') {
    return input.map((s: unknown, i) => {
      if (typeof s !== 'string') throw invalidType(`input[${i}]`, 'a string (inputs may not mix strings and token arrays)', s);
      return nonEmpty(s, `input[${i}]`);
    });
  }
  if (typeof first === 'number') return [tokens(input, 'input')];
  return input.map((t: unknown, i) => {
    if (!Array.isArray(t)) throw invalidType(`input[${i}]`, 'an array of token ids', t);
    if (t.length === 0) throw invalidValue(`input[${i}]`, 'must not be an empty token array');
    return tokens(t, `input[${i}]`);
  });
}

function tokens(list: unknown[], param: string): number[] {
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0)
      throw invalidType(`${param}[${i}]`, 'a token id (a non-negative integer)', t);
  }
  return list as number[];
}

function nonEmpty(text: string, param: string): string {
  if (text.length === 0) throw invalidValue(param, 'must not be an empty string');
  return text;
}
