import type { FinishReason, UrlCitation } from '../../canonical/finish-reason.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { ReasoningPart, ToolCallPart } from '../../canonical/request.ts';
import { redactedToEncryptedContent } from './reasoning-encrypted-content.ts';
import type { McpCallItem, McpListToolsItem } from '../shared/encode-mcp-call.ts';

// The output items of a response and the rules both encoders share, so a streamed and a
// whole answer to the same parts are the same items with the same ids.
//
// Function calls are separate `function_call` items, the shape the official clients,
// Codex and the AI SDK parse. The spec also describes a `function_call` content part
// inside a message item; strict parsers (the AI SDK's schema, Codex's content enum) reject
// an unknown content part and would lose the whole message, so it is never emitted here
// (docs/responses.md has the reasoning). Replayed input accepts both shapes.

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  /** `url_citation` annotations of a web search the gateway ran (on the answer's last message). */
  annotations: ResponsesUrlCitation[];
}

export interface MessageItem {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: OutputTextPart[];
}

export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  arguments: string;
  call_id: string;
  name: string;
}

export interface SummaryText {
  type: 'summary_text';
  text: string;
}

export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  summary: SummaryText[];
  encrypted_content: string | null;
}

export interface ErrorItem {
  id: string;
  type: 'error';
  code: string;
  message: string;
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem | ErrorItem | McpCallItem | McpListToolsItem;

export type ResponseStatus = 'completed' | 'incomplete' | 'failed';

/** The `resp_…` id for a generation id (`gen-…`); items are named after it. */
export function responseIdTail(generationId: string): string {
  return generationId.startsWith('gen-') ? generationId.slice(4) : generationId;
}

/** `msg_…`, `fc_…`, `rs_…`, `err_…`: unique within the response, and the same streamed or not. */
export function itemId(prefix: string, tail: string, outputIndex: number): string {
  return `${prefix}_${tail}_${outputIndex}`;
}

/**
 * Responses have no finish reason: a cut answer is `incomplete` with a reason, a failed
 * one `failed`. No finish at all (an upstream that just stopped) counts as completed.
 */
export function statusOf(finish: FinishReason | null): ResponseStatus {
  if (finish === null) return 'completed';
  const unified = finish.unified;
  switch (unified) {
    case 'stop':
    case 'tool_calls':
      return 'completed';
    case 'length':
    case 'content_filter':
      return 'incomplete';
    case 'error':
      return 'failed';
    default:
      return assertNever(unified);
  }
}

const MAX_OUTPUT_TOKENS = { reason: 'max_output_tokens' } as const;
const CONTENT_FILTER = { reason: 'content_filter' } as const;

export function incompleteDetailsOf(finish: FinishReason | null): { reason: string } | null {
  if (finish === null) return null;
  const unified = finish.unified;
  switch (unified) {
    case 'length':
      return MAX_OUTPUT_TOKENS;
    case 'content_filter':
      return CONTENT_FILTER;
    case 'stop':
    case 'tool_calls':
    case 'error':
      return null;
    default:
      return assertNever(unified);
  }
}

/** The error a provider's `error` finish becomes, for `response.error` and the error item. */
export const FINISHED_WITH_ERROR = { code: 'provider_error', message: 'The provider ended its answer with an error.' } as const;

/** Items still open when the answer ends share its fate: cut answers leave them incomplete. */
export function itemStatusFor(status: ResponseStatus): ItemStatus {
  return status === 'completed' ? 'completed' : 'incomplete';
}

/** The responses API's annotation: flat, where chat's nests under `url_citation`. */
export interface ResponsesUrlCitation {
  type: 'url_citation';
  start_index: number;
  end_index: number;
  url: string;
  title: string;
}

export function messageItem(id: string, status: ItemStatus, text: string, annotations: ResponsesUrlCitation[] = []): MessageItem {
  return { id, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', text, annotations }] };
}

/** A finish's web search annotations in the responses shape (none when the gateway searched for nothing). */
export function responsesAnnotationsOf(finish: FinishReason | null): ResponsesUrlCitation[] {
  const list: UrlCitation[] | undefined = finish?.annotations;
  if (list === undefined) return [];
  return list.map(({ url_citation: c }) => ({
    type: 'url_citation',
    start_index: c.start_index,
    end_index: c.end_index,
    url: c.url,
    title: c.title,
  }));
}

export function functionCallItem(id: string, status: ItemStatus, call: ToolCallPart): FunctionCallItem {
  return { id, type: 'function_call', status, arguments: call.arguments, call_id: call.id, name: call.name };
}

/** Reasoning text is the item's one summary part; the signature rides in `encrypted_content`. */
export function reasoningItem(id: string, part: ReasoningPart): ReasoningItem {
  return {
    id,
    type: 'reasoning',
    summary: part.text.length > 0 ? [{ type: 'summary_text', text: part.text }] : [],
    encrypted_content: part.signature ?? null,
  };
}

export function redactedReasoningItem(id: string, data: string): ReasoningItem {
  return { id, type: 'reasoning', summary: [], encrypted_content: redactedToEncryptedContent(data) };
}
