import type { CanonicalRequest } from '../../canonical/request.ts';
import type { EmbeddingTask, ModelKind, TaskRequest } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { textInputs, unsupportedDimensions } from '../tasks/embedding-inputs.ts';
import { COHERE_MAX_INPUTS, embeddingInputLimit, TITAN_MAX_INPUTS } from '../tasks/embedding-limits.ts';
import { decodeVector, malformedTaskAnswer, parseTaskJson, taskUsage } from '../tasks/task-answers.ts';
import type { PartSink, TaskCodec, UpstreamTaskRequest } from '../types.ts';

// Bedrock embeddings through InvokeModel (`POST {base}/model/{modelId}/invoke`, SigV4-signed
// or a Bedrock API key, as Converse), whose body is the model vendor's own:
// - Amazon Titan Text Embeddings (`amazon.titan-embed-text-v2:0`): `{inputText, dimensions,
//   normalize}` → `{embedding, inputTextTokenCount}`, one input per call (v2 takes 256, 512
//   or 1024 dimensions; v1 none);
// - Cohere Embed (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, `cohere.embed-v4:0`):
//   `{texts, input_type}` → `{embeddings: [[...]]}` (or `{embeddings: {float: [...]}}`), up to
//   96 texts; `input_type` is `search_document` unless the provider's
//   `options.embedding_task_type` says otherwise (search_query, classification, clustering);
//   only v4 takes `output_dimension` (256, 512, 1024, 1536).
// Bedrock reports the input tokens in the `x-amzn-bedrock-input-token-count` header (Titan
// also in its body); without either, the gateway counts them.

const KINDS: ReadonlySet<ModelKind> = new Set(['embedding']);
const TITAN_V2_DIMENSIONS = [256, 512, 1024];
const COHERE_V4_DIMENSIONS = [256, 512, 1024, 1536];

type Family = 'titan' | 'titan-v1' | 'cohere' | 'cohere-v4';

function familyOf(endpoint: Endpoint): Family | null {
  const id = endpoint.upstreamModel;
  if (id.includes('titan-embed-text-v1') || id.includes('titan-embed-g1')) return 'titan-v1';
  if (id.includes('titan-embed')) return 'titan';
  if (id.includes('cohere.embed-v4')) return 'cohere-v4';
  if (id.includes('cohere.embed')) return 'cohere';
  return null;
}

function family(endpoint: Endpoint): Family {
  const f = familyOf(endpoint);
  if (f === null) {
    throw new GatewayError(
      'provider_error',
      `Bedrock model "${endpoint.upstreamModel}" is not a known embedding model (Amazon Titan Text Embeddings or Cohere Embed).`,
      {
        metadata: { provider_name: endpoint.provider.id },
      },
    );
  }
  return f;
}

export function encodeBedrockEmbeddings(_req: CanonicalRequest, task: EmbeddingTask, endpoint: Endpoint): UpstreamTaskRequest {
  const f = family(endpoint);
  const texts = textInputs(task, endpoint);
  let body: Record<string, unknown>;
  if (f === 'titan' || f === 'titan-v1') {
    if (texts.length !== 1) throw new GatewayError('provider_error', 'Titan Text Embeddings takes one input per call.');
    body = { inputText: texts[0] };
    if (task.dimensions !== undefined) {
      if (f === 'titan-v1' || !TITAN_V2_DIMENSIONS.includes(task.dimensions))
        throw unsupportedDimensions(endpoint, f === 'titan-v1' ? 'none' : TITAN_V2_DIMENSIONS.join(', '));
      body.dimensions = task.dimensions;
    }
    if (f === 'titan') body.normalize = true;
  } else {
    const option = endpoint.provider.options?.embedding_task_type;
    body = { texts, input_type: typeof option === 'string' && option.length > 0 ? option.toLowerCase() : 'search_document' };
    if (task.dimensions !== undefined) {
      if (f !== 'cohere-v4' || !COHERE_V4_DIMENSIONS.includes(task.dimensions))
        throw unsupportedDimensions(endpoint, f === 'cohere' ? 'none' : COHERE_V4_DIMENSIONS.join(', '));
      body.output_dimension = task.dimensions;
    }
  }
  const provider = endpoint.provider;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  return {
    url: `${provider.baseUrl.replace(/\/+$/, '')}/model/${encodeURIComponent(endpoint.upstreamModel)}/invoke`,
    headers,
    body: JSON.stringify(body),
  };
}

interface BedrockEmbeddingAnswer {
  embedding?: unknown;
  inputTextTokenCount?: unknown;
  embeddings?: unknown;
}

export function decodeBedrockEmbeddings(
  task: EmbeddingTask,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
  emit: PartSink,
): void {
  const answer = parseTaskJson<BedrockEmbeddingAnswer>(body, endpoint, emit);
  if (answer === null) return;
  const f = family(endpoint);
  let list: unknown[];
  if (f === 'titan' || f === 'titan-v1') list = [answer.embedding];
  else {
    const e = answer.embeddings;
    list = Array.isArray(e)
      ? e
      : e !== null && typeof e === 'object' && Array.isArray((e as { float?: unknown }).float)
        ? (e as { float: unknown[] }).float
        : [];
  }
  if (list.length !== task.input.length)
    return emit(malformedTaskAnswer(endpoint, `expected ${task.input.length} embeddings, got ${list.length}`));
  const vectors: number[][] = [];
  for (let i = 0; i < list.length; i++) {
    const vector = decodeVector(list[i]);
    if (vector === null) return emit(malformedTaskAnswer(endpoint, `embedding ${i} is not a vector of numbers`));
    vectors.push(vector);
  }
  emit({ type: 'task-result', result: { kind: 'embedding', vectors } });
  const tokens =
    inputTokens(headers['x-amzn-bedrock-input-token-count']) ??
    (typeof answer.inputTextTokenCount === 'number' ? answer.inputTextTokenCount : null);
  if (tokens !== null) emit({ type: 'usage', usage: taskUsage(tokens, 0) });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}

function inputTokens(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value)) return null;
  return Number(value);
}

function maxInputs(_task: TaskRequest, endpoint: Endpoint): number {
  const f = familyOf(endpoint);
  return embeddingInputLimit(endpoint, f === 'cohere' || f === 'cohere-v4' ? COHERE_MAX_INPUTS : TITAN_MAX_INPUTS);
}

/** Bedrock's embedding models through InvokeModel. */
export const bedrockTaskCodec: TaskCodec = {
  kindsFor: () => KINDS,
  encode(req, task, endpoint) {
    if (task.kind === 'embedding') return encodeBedrockEmbeddings(req, task, endpoint);
    throw new GatewayError('provider_error', `The Bedrock adapter does not carry ${task.kind} requests.`);
  },
  maxInputs,
  decode(task, body, headers, endpoint, emit) {
    if (task.kind === 'embedding') return decodeBedrockEmbeddings(task, body, headers, endpoint, emit);
    throw new GatewayError('provider_error', `The Bedrock adapter does not carry ${task.kind} requests.`);
  },
};
