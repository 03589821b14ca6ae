import type { CanonicalRequest } from '../../canonical/request.ts';
import type { EmbeddingTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { textInputs } from '../tasks/embedding-inputs.ts';
import { decodeVector, malformedTaskAnswer, parseTaskJson } from '../tasks/task-answers.ts';

// Gemini API embeddings: `POST {base}/models/{model}:batchEmbedContents` with one request per
// input (`{model, content: {parts: [{text}]}, outputDimensionality}`), answered
// `{embeddings: [{values}]}` in request order. Gemini reports no token count for
// embeddings: the answer carries no usage part, and the gateway counts the inputs itself
// (pipeline/estimate-usage.ts). A provider's `options.embedding_task_type`
// (RETRIEVAL_DOCUMENT, RETRIEVAL_QUERY, SEMANTIC_SIMILARITY, ...) is sent as `taskType`.

export function geminiModelName(endpoint: Endpoint): string {
  return endpoint.upstreamModel.startsWith('models/') ? endpoint.upstreamModel.slice(7) : endpoint.upstreamModel;
}

/** `options.embedding_task_type` when the operator set one. */
export function embeddingTaskType(endpoint: Endpoint): string | undefined {
  const value = endpoint.provider.options?.embedding_task_type;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function encodeGeminiEmbeddings(_req: CanonicalRequest, task: EmbeddingTask, endpoint: Endpoint): UpstreamTaskRequest {
  const provider = endpoint.provider;
  const model = geminiModelName(endpoint);
  const taskType = embeddingTaskType(endpoint);
  const requests = textInputs(task, endpoint).map((text) => {
    const one: Record<string, unknown> = { model: `models/${model}`, content: { parts: [{ text }] } };
    if (task.dimensions !== undefined) one.outputDimensionality = task.dimensions;
    if (taskType !== undefined) one.taskType = taskType;
    return one;
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) headers['x-goog-api-key'] = provider.apiKey;
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  return { url: `${provider.baseUrl.replace(/\/+$/, '')}/models/${model}:batchEmbedContents`, headers, body: JSON.stringify({ requests }) };
}

export function decodeGeminiEmbeddings(task: EmbeddingTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const answer = parseTaskJson<{ embeddings?: { values?: unknown }[] }>(body, endpoint, emit);
  if (answer === null) return;
  const list = answer.embeddings;
  if (!Array.isArray(list) || list.length !== task.input.length) {
    return emit(
      malformedTaskAnswer(endpoint, `expected ${task.input.length} embeddings, got ${Array.isArray(list) ? list.length : 'none'}`),
    );
  }
  const vectors: number[][] = [];
  for (let i = 0; i < list.length; i++) {
    const vector = decodeVector(list[i]?.values);
    if (vector === null) return emit(malformedTaskAnswer(endpoint, `embedding ${i} is not a vector of numbers`));
    vectors.push(vector);
  }
  emit({ type: 'task-result', result: { kind: 'embedding', vectors } });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
