import type { FinishReason } from './finish-reason.ts';
import type { Usage } from './usage.ts';
import type { TaskResult } from './task.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ServerToolCall, ServerToolList } from './server-tools.ts';

// A flat union of everything an answer is made of, streamed or not. Named noun-then-action.
// Tool calls are keyed by `index`, their order of appearance in this answer.

export interface StreamStartPart {
  type: 'stream-start';
  id?: string;
  model?: string;
}
/**
 * `plain`: the decoder knows the text holds no character JSON escapes (`"`, `\`, controls),
 * because it read it verbatim from the upstream's JSON: an encoder may then quote it as is
 * instead of calling JSON.stringify (the pass-through fast lane, docs/architecture.md).
 */
export interface TextDeltaPart {
  type: 'text-delta';
  text: string;
  plain?: true;
}
export interface ReasoningDeltaPart {
  type: 'reasoning-delta';
  text: string;
}
export interface ReasoningSignaturePart {
  type: 'reasoning-signature';
  signature: string;
}
export interface ReasoningRedactedPart {
  type: 'reasoning-redacted';
  data: string;
}
export interface ToolCallStartPart {
  type: 'tool-call-start';
  index: number;
  id: string;
  name: string;
  signature?: string;
}
export interface ToolCallDeltaPart {
  type: 'tool-call-delta';
  index: number;
  argumentsDelta: string;
}
export interface ToolCallEndPart {
  type: 'tool-call-end';
  index: number;
}
/**
 * A piece of spoken output (OpenAI's `audio` modality): a chunk of the base64 audio, of its
 * transcript, or both. The pieces of one answer share an `id` (when the vendor gives one; it
 * may come on the first piece only) and fold into one `audio-output` content part.
 * `expiresAt` (Unix seconds) is when the vendor forgets the audio, after which its `id` can
 * no longer be replayed.
 */
export interface AudioDeltaPart {
  type: 'audio-delta';
  id?: string;
  data?: string;
  transcript?: string;
  format?: string;
  expiresAt?: number;
}
/** A generated image, whole: a `data:` URI or an https URL. */
export interface ImageOutputPart {
  type: 'image-output';
  url: string;
}
/** The whole answer of a task request (embeddings, images, speech, transcription). */
export interface TaskResultPart {
  type: 'task-result';
  result: TaskResult;
}
export interface FinishPart {
  type: 'finish';
  reason: FinishReason;
}
export interface UsagePart {
  type: 'usage';
  usage: Usage;
}
export interface ErrorPart {
  type: 'error';
  error: GatewayError;
}
/** The tools of an MCP server the gateway gave the model (docs/tools.md); only the gateway's loop emits it. */
export interface ServerToolListPart {
  type: 'server-tool-list';
  list: ServerToolList;
}
/** A tool the gateway runs: once as it starts (`in_progress`), once done (`completed`, `failed`) with the same id. */
export interface ServerToolCallPart {
  type: 'server-tool-call';
  call: ServerToolCall;
}

export type StreamPart =
  | StreamStartPart
  | TextDeltaPart
  | ReasoningDeltaPart
  | ReasoningSignaturePart
  | ReasoningRedactedPart
  | ToolCallStartPart
  | ToolCallDeltaPart
  | ToolCallEndPart
  | AudioDeltaPart
  | ImageOutputPart
  | TaskResultPart
  | FinishPart
  | UsagePart
  | ErrorPart
  | ServerToolListPart
  | ServerToolCallPart;

export { assertNever } from './assert-never.ts';
