import type { CanonicalRequest } from '../../canonical/request.ts';
import type { EmbeddingTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { embeddingTaskType } from '../google/gemini-embeddings.ts';
import { textInputs } from '../tasks/embedding-inputs.ts';
import { decodeVector, malformedTaskAnswer, parseTaskJson, taskUsage } from '../tasks/task-answers.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { vertexModelUrl } from './vertex-urls.ts';

// Vertex AI embeddings: `…/publishers/google/models/{model}:predict` with
// `{instances: [{content, task_type?}], parameters: {outputDimensionality?}}`, answered
// `{predictions: [{embeddings: {values, statistics: {token_count}}}]}` in instance order;
// the token counts are summed into the usage. text-embedding models take up to 250
// instances a call, gemini-embedding models one. The bearer token is added by `authorize`.

export function encodeVertexEmbeddings(_req: CanonicalRequest, task: EmbeddingTask, endpoint: Endpoint): UpstreamTaskRequest {
  const taskType = embeddingTaskType(endpoint);
  const instances = textInputs(task, endpoint).map((content) => (taskType === undefined ? { content } : { content, task_type: taskType }));
  const body: Record<string, unknown> = { instances };
  if (task.dimensions !== undefined) body.parameters = { outputDimensionality: task.dimensions };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.provider.headers !== undefined) Object.assign(headers, endpoint.provider.headers);
  return { url: vertexModelUrl(endpoint, 'google', 'predict'), headers, body: JSON.stringify(body) };
}

interface VertexPrediction {
  embeddings?: { values?: unknown; statistics?: { token_count?: unknown } };
}

export function decodeVertexEmbeddings(task: EmbeddingTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const answer = parseTaskJson<{ predictions?: VertexPrediction[] }>(body, endpoint, emit);
  if (answer === null) return;
  const list = answer.predictions;
  if (!Array.isArray(list) || list.length !== task.input.length) {
    return emit(
      malformedTaskAnswer(endpoint, `expected ${task.input.length} predictions, got ${Array.isArray(list) ? list.length : 'none'}`),
    );
  }
  const vectors: number[][] = [];
  let tokens = 0;
  let counted = true;
  for (let i = 0; i < list.length; i++) {
    const vector = decodeVector(list[i]?.embeddings?.values);
    if (vector === null) return emit(malformedTaskAnswer(endpoint, `prediction ${i} has no vector of numbers`));
    vectors.push(vector);
    const count = list[i]!.embeddings!.statistics?.token_count;
    if (typeof count === 'number' && Number.isFinite(count) && count >= 0) tokens += Math.ceil(count);
    else counted = false;
  }
  emit({ type: 'task-result', result: { kind: 'embedding', vectors } });
  // A prediction without its count: none is reported, and the gateway counts the inputs itself.
  if (counted) emit({ type: 'usage', usage: taskUsage(tokens, 0) });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
