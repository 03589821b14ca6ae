import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { EmbeddingTask } from '../../canonical/task.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { invalidType, invalidValue, isObject, missingParameter, type JsonObject } from '../shared/read-fields.ts';
import { checkJsonDepth } from '../shared/check-json-depth.ts';
import { MAX_EMBEDDING_INPUTS } from '../openai-embeddings/decode-embeddings-request.ts';
import { readGeminiKey } from './gemini-dialect.ts';
import { renderGeminiError } from './render-gemini-error.ts';

// Gemini's embedContent and batchEmbedContents → the canonical embedding task, so they ride
// the same path as POST /v1/embeddings (docs/modalities.md) with Google's shapes and errors.
// `taskType` and `title` are accepted and not forwarded (a provider's `embedding_task_type`
// option sets the task type upstream); every request of a batch must name the path's model
// and one `outputDimensionality`.

/** `{content: {parts: [{text}]}, outputDimensionality?, taskType?, title?}` */
export function decodeGeminiEmbedContent(body: unknown, model: string): CanonicalRequest {
  if (!isObject(body)) throw invalidType('body', 'a JSON object', body);
  checkJsonDepth(body);
  return embeddingRequest(model, [contentText(body, 'content')], dimensionsOf(body, undefined));
}

/** `{requests: [{model: "models/…", content, outputDimensionality?}, …]}` */
export function decodeGeminiBatchEmbed(body: unknown, model: string): CanonicalRequest {
  if (!isObject(body)) throw invalidType('body', 'a JSON object', body);
  checkJsonDepth(body);
  const requests = body.requests;
  if (requests === undefined || requests === null) throw missingParameter('requests');
  if (!Array.isArray(requests)) throw invalidType('requests', 'an array of embed requests', requests);
  if (requests.length === 0) throw invalidValue('requests', 'must not be empty');
  if (requests.length > MAX_EMBEDDING_INPUTS)
    throw invalidValue('requests', `at most ${MAX_EMBEDDING_INPUTS} requests per batch, got ${requests.length}`);
  let dimensions: number | undefined;
  const texts = requests.map((r: unknown, i) => {
    const at = `requests[${i}]`;
    if (!isObject(r)) throw invalidType(at, 'an embed request object', r);
    const named = r.model;
    if (named !== undefined && named !== null) {
      if (typeof named !== 'string') throw invalidType(`${at}.model`, 'a string', named);
      const bare = named.startsWith('models/') ? named.slice('models/'.length) : named;
      if (bare !== model && decodeURIComponent(bare) !== model)
        throw invalidValue(`${at}.model`, `must be the path's model "models/${model}", got "${named}"`);
    }
    const d = dimensionsOf(r, at);
    if (i > 0 && d !== dimensions)
      throw invalidValue(`${at}.outputDimensionality`, 'every request of a batch must ask for the same outputDimensionality');
    dimensions = d;
    return contentText(r, `${at}.content`);
  });
  return embeddingRequest(model, texts, dimensions);
}

function embeddingRequest(model: string, input: string[], dimensions: number | undefined): CanonicalRequest {
  const task: EmbeddingTask = { kind: 'embedding', input, encodingFormat: 'float' };
  if (dimensions !== undefined) task.dimensions = dimensions;
  return { models: [{ model }], messages: [], sampling: {}, stream: false, extra: {}, task };
}

/** The text parts of a content, joined (Gemini embeds one content as one text). */
function contentText(obj: JsonObject, param: string): string {
  const content = obj.content;
  if (content === undefined || content === null) throw missingParameter(param);
  if (!isObject(content)) throw invalidType(param, 'a Content object', content);
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length === 0) throw invalidValue(`${param}.parts`, 'must be a non-empty array of text parts');
  const texts: string[] = [];
  parts.forEach((p: unknown, i) => {
    if (!isObject(p) || typeof p.text !== 'string') throw invalidValue(`${param}.parts[${i}]`, 'embeddings take text parts only');
    texts.push(p.text);
  });
  const text = texts.join('\n');
  if (text.length === 0) throw invalidValue(`${param}.parts`, 'the text to embed is empty');
  return text;
}

function dimensionsOf(obj: JsonObject, at: string | undefined): number | undefined {
  const value = obj.outputDimensionality;
  if (value === undefined || value === null) return undefined;
  const param = at === undefined ? 'outputDimensionality' : `${at}.outputDimensionality`;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65_536)
    throw invalidType(param, 'a positive integer', value);
  return value;
}

function vectors(resp: CanonicalResponse): number[][] {
  return resp.task?.kind === 'embedding' ? resp.task.vectors : [];
}

function embedDialect(encodeResponse: FrontDialect['encodeResponse']): FrontDialect {
  return {
    name: 'embeddings',
    readKey: readGeminiKey,
    keyHeaders: 'google',
    decode: () => {
      throw new Error('the Gemini route decodes with the target of its path');
    },
    encodeResponse,
    createStreamEncoder: taskFrontStreamEncoder,
    renderError: renderGeminiError,
  };
}

/** `{embedding: {values}}` */
export const geminiEmbedContentDialect = embedDialect((resp) => ({ embedding: { values: vectors(resp)[0] ?? [] } }));
/** `{embeddings: [{values}, …]}` in request order. */
export const geminiBatchEmbedDialect = embedDialect((resp) => ({ embeddings: vectors(resp).map((values) => ({ values })) }));
