// The embedding answers of the Gemini, Vertex and Bedrock emulators, in each vendor's shape.
// Vectors are deterministic from the text alone (so a test can check that a request split in
// parts comes back joined in input order), and an input `!fail` makes the call fail with
// the vendor's 500, so a test can fail one part of a split request.

/** [length, sum of char codes, dimensions asked (0: none)]: the same text, the same vector. */
export function textVector(text: string, dimensions?: number): number[] {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return [text.length, sum, dimensions ?? 0];
}

/** The input that fails its call. */
export const FAILING_INPUT = '!fail';

/** Tokens the emulators report per text (Gemini reports none). */
export function textTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export interface EmbeddingAnswer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

const GOOGLE_500 = { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } };

/** Gemini `batchEmbedContents`: `{requests: [{model, content: {parts: [{text}]}, outputDimensionality}]}` → `{embeddings: [{values}]}`. */
export function geminiBatchEmbed(body: any, model: string): EmbeddingAnswer {
  const requests = body?.requests;
  if (!Array.isArray(requests) || requests.length === 0)
    return {
      status: 400,
      json: { error: { code: 400, message: '* BatchEmbedContentsRequest.requests: must not be empty', status: 'INVALID_ARGUMENT' } },
    };
  if (requests.length > 100)
    return {
      status: 400,
      json: {
        error: {
          code: 400,
          message: '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch',
          status: 'INVALID_ARGUMENT',
        },
      },
    };
  const embeddings: { values: number[] }[] = [];
  for (const r of requests) {
    if (r?.model !== `models/${model}`)
      return {
        status: 400,
        json: {
          error: {
            code: 400,
            message: `* BatchEmbedContentsRequest.model: the model of each request must be models/${model}`,
            status: 'INVALID_ARGUMENT',
          },
        },
      };
    const text = r?.content?.parts?.[0]?.text;
    if (typeof text !== 'string')
      return { status: 400, json: { error: { code: 400, message: '* content.parts[0].text: required', status: 'INVALID_ARGUMENT' } } };
    if (text === FAILING_INPUT) return { status: 500, json: GOOGLE_500 };
    embeddings.push({ values: textVector(text, r.outputDimensionality) });
  }
  return { status: 200, json: { embeddings } };
}

/** Vertex `:predict` for a text-embedding model: `{instances: [{content}], parameters}` → `{predictions: [{embeddings: {values, statistics}}]}`. */
export function vertexPredictEmbed(body: any, model: string): EmbeddingAnswer {
  const instances = body?.instances;
  if (!Array.isArray(instances) || instances.length === 0)
    return { status: 400, json: { error: { code: 400, message: 'instances must not be empty', status: 'INVALID_ARGUMENT' } } };
  const max = model.includes('gemini-embedding') ? 1 : 250;
  if (instances.length > max)
    return {
      status: 400,
      json: {
        error: {
          code: 400,
          message: `Unable to submit request because the model supports up to ${max} instances per request.`,
          status: 'INVALID_ARGUMENT',
        },
      },
    };
  const dims = body?.parameters?.outputDimensionality;
  const predictions = [];
  for (const instance of instances) {
    const text = instance?.content;
    if (typeof text !== 'string')
      return { status: 400, json: { error: { code: 400, message: 'content is required', status: 'INVALID_ARGUMENT' } } };
    if (text === FAILING_INPUT) return { status: 500, json: GOOGLE_500 };
    predictions.push({ embeddings: { values: textVector(text, dims), statistics: { token_count: textTokens(text), truncated: false } } });
  }
  return {
    status: 200,
    json: { predictions, metadata: { billableCharacterCount: instances.reduce((n: number, i: any) => n + String(i.content).length, 0) } },
  };
}

const BEDROCK_500 = {
  status: 500,
  json: { message: 'The server encountered an internal error.' },
  headers: { 'x-amzn-errortype': 'InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
};

function bedrockInvalid(message: string): EmbeddingAnswer {
  return {
    status: 400,
    json: { message },
    headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
  };
}

/** Bedrock InvokeModel for Titan Text Embeddings v2 and Cohere Embed, with Bedrock's token-count header. */
export function bedrockInvokeEmbed(body: any, model: string): EmbeddingAnswer {
  if (model.includes('titan-embed')) {
    const extra = Object.keys(body ?? {}).filter((k) => !['inputText', 'dimensions', 'normalize', 'embeddingTypes'].includes(k));
    if (extra.length > 0)
      return bedrockInvalid(
        `Malformed input request: #: extraneous key [${extra[0]}] is not permitted, please reformat your input and try again.`,
      );
    if (typeof body.inputText !== 'string')
      return bedrockInvalid('Malformed input request: #: required key [inputText] not found, please reformat your input and try again.');
    if (body.inputText === FAILING_INPUT) return BEDROCK_500;
    if (body.dimensions !== undefined && ![256, 512, 1024].includes(body.dimensions))
      return bedrockInvalid(
        'Malformed input request: #/dimensions: 3 is not a valid enum value, please reformat your input and try again.',
      );
    const tokens = textTokens(body.inputText);
    return {
      status: 200,
      json: { embedding: textVector(body.inputText, body.dimensions), embeddingsByType: {}, inputTextTokenCount: tokens },
      headers: { 'x-amzn-bedrock-input-token-count': String(tokens) },
    };
  }
  if (model.includes('cohere.embed')) {
    const texts = body?.texts;
    if (!Array.isArray(texts) || texts.length === 0)
      return bedrockInvalid('Malformed input request: #: required key [texts] not found, please reformat your input and try again.');
    if (texts.length > 96)
      return bedrockInvalid(
        `Malformed input request: #/texts: expected maximum item count: 96, found: ${texts.length}, please reformat your input and try again.`,
      );
    if (typeof body.input_type !== 'string')
      return bedrockInvalid('Malformed input request: #: required key [input_type] not found, please reformat your input and try again.');
    if (texts.includes(FAILING_INPUT)) return BEDROCK_500;
    const tokens = texts.reduce((n: number, t: string) => n + textTokens(t), 0);
    return {
      status: 200,
      json: {
        id: 'emb-emu',
        texts,
        embeddings: texts.map((t: string) => textVector(t, body.output_dimension)),
        response_type: 'embeddings_floats',
      },
      headers: { 'x-amzn-bedrock-input-token-count': String(tokens) },
    };
  }
  return bedrockInvalid(`The provided model identifier is invalid: ${model}`);
}
