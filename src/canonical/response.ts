import type { AssistantContentPart } from './request.ts';
import type { FinishReason } from './finish-reason.ts';
import type { Usage } from './usage.ts';
import type { TaskResult } from './task.ts';
import type { ServerToolEntry } from './server-tools.ts';

/** A whole answer: the fold of its stream parts (see fold-stream-parts.ts). */
export interface CanonicalResponse {
  id?: string;
  model?: string;
  content: AssistantContentPart[];
  finish: FinishReason | null;
  usage: Usage | null;
  /** A task request's result (embeddings, images, audio, a transcript). */
  task?: TaskResult;
  /** The tools the gateway ran for it (MCP servers'), each placed among `content`; absent when none. */
  serverTools?: ServerToolEntry[];
}
