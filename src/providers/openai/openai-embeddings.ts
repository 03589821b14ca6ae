import type { CanonicalRequest } from '../../canonical/request.ts';
import type { EmbeddingTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { openAIUpstreamHeaders, openAIUpstreamUrl } from './openai-upstream-address.ts';
import { decodeVector, malformedTaskAnswer, parseTaskJson, taskUsage } from '../tasks/task-answers.ts';

// OpenAI's `POST /embeddings`, spoken by every OpenAI-compatible server that embeds. The
// vectors are always asked for as floats: the gateway encodes base64 itself when the client
// asks for it, so one answer shape comes back from every vendor.

export function encodeOpenAIEmbeddings(req: CanonicalRequest, task: EmbeddingTask, endpoint: Endpoint): UpstreamTaskRequest {
  const profile = openAIProfileFor(endpoint.provider);
  const body: Record<string, unknown> = { model: endpoint.upstreamModel, input: task.input, encoding_format: 'float' };
  if (task.dimensions !== undefined) body.dimensions = task.dimensions;
  if (req.user !== undefined) body.user = req.user;
  return {
    url: openAIUpstreamUrl(profile, endpoint, 'embeddings'),
    headers: openAIUpstreamHeaders(profile, endpoint, 'application/json'),
    body: JSON.stringify(body),
  };
}

interface OpenAIEmbeddingsAnswer {
  data?: { index?: number; embedding?: unknown }[];
  usage?: { prompt_tokens?: number; total_tokens?: number };
  model?: string;
}

export function decodeOpenAIEmbeddings(task: EmbeddingTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const answer = parseTaskJson<OpenAIEmbeddingsAnswer>(body, endpoint, emit);
  if (answer === null) return;
  const data = answer.data;
  if (!Array.isArray(data) || data.length !== task.input.length) {
    return emit(
      malformedTaskAnswer(endpoint, `expected ${task.input.length} embeddings, got ${Array.isArray(data) ? data.length : 'none'}`),
    );
  }
  const vectors: number[][] = new Array<number[]>(data.length);
  for (let i = 0; i < data.length; i++) {
    const item = data[i]!;
    const index = typeof item.index === 'number' ? item.index : i;
    const vector = decodeVector(item.embedding);
    if (vector === null || index < 0 || index >= data.length || vectors[index] !== undefined) {
      return emit(malformedTaskAnswer(endpoint, `embedding ${i} is not a vector of numbers with a distinct index`));
    }
    vectors[index] = vector;
  }
  emit({ type: 'task-result', result: { kind: 'embedding', vectors } });
  const tokens = answer.usage?.prompt_tokens ?? answer.usage?.total_tokens;
  if (typeof tokens === 'number') emit({ type: 'usage', usage: taskUsage(tokens, 0, answer.usage) });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
