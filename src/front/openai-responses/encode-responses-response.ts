import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { serverToolsBefore } from '../../canonical/server-tools-order.ts';
import { mcpCallItem, mcpListToolsItem } from '../shared/encode-mcp-call.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { echoOf, type ResponsesEchoJson } from './responses-echo.ts';
import { encodeResponsesUsage, type ResponsesUsage } from './encode-responses-usage.ts';
import {
  FINISHED_WITH_ERROR,
  functionCallItem,
  incompleteDetailsOf,
  itemId,
  messageItem,
  reasoningItem,
  responsesAnnotationsOf,
  redactedReasoningItem,
  responseIdTail,
  statusOf,
  type MessageItem,
  type OutputItem,
  type ResponseStatus,
} from './responses-output-items.ts';

// A whole answer → the Response object: the vendor's shape (what openai-node, Codex and
// the AI SDK parse) with the spec's additions — `created` beside `created_at`, and the
// spec's usage fields beside the vendor's — plus `provider` as on the chat endpoint.

export interface ResponsesResponseHead {
  id: string;
  object: 'response';
  created_at: number;
  created: number;
  status: ResponseStatus | 'in_progress';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  model: string;
  provider: string;
  output: OutputItem[];
}

export type ResponsesResponse = ResponsesResponseHead & ResponsesEchoJson & { usage: ResponsesUsage | null };

/** `req` (the request answered) gives the echoed settings; without it they take their defaults. */
export function encodeResponsesResponse(resp: CanonicalResponse, meta: ResponseMeta, req?: CanonicalRequest): ResponsesResponse {
  const tail = responseIdTail(meta.id);
  const status = statusOf(resp.finish);
  const output: OutputItem[] = [];
  // Consecutive text parts are one message item, as the stream encoder writes them.
  let message: MessageItem | null = null;
  for (let i = 0; i <= resp.content.length; i++) {
    for (const entry of serverToolsBefore(resp, i)) {
      output.push(
        entry.kind === 'list'
          ? { ...mcpListToolsItem(entry.list), id: itemId('mcpl', tail, output.length) }
          : { ...mcpCallItem(entry.call), id: itemId('mcp', tail, output.length) },
      );
      message = null;
    }
    const part = resp.content[i];
    if (part === undefined) break;
    switch (part.type) {
      case 'text': {
        if (part.text.length === 0) break;
        const first = message?.content[0];
        if (first !== undefined) first.text += part.text;
        else {
          message = messageItem(itemId('msg', tail, output.length), 'completed', part.text);
          output.push(message);
        }
        break;
      }
      case 'reasoning':
        if (meta.excludeReasoning || (part.text.length === 0 && part.signature === undefined)) break;
        output.push(reasoningItem(itemId('rs', tail, output.length), part));
        message = null;
        break;
      case 'redacted-reasoning':
        if (meta.excludeReasoning) break;
        output.push(redactedReasoningItem(itemId('rs', tail, output.length), part.data));
        message = null;
        break;
      case 'tool-call':
        output.push(functionCallItem(itemId('fc', tail, output.length), 'completed', part));
        message = null;
        break;
      case 'audio-output':
      case 'image-output':
        // Generated audio and images are left out: the output items this dialect writes are
        // messages, function calls, reasoning and errors (spec "Responses-format request"),
        // none of which holds them. Chat completions carry both (`message.audio`, `images`).
        break;
      default:
        assertNever(part);
    }
  }
  // A web search the gateway ran: its sources on the answer's last message.
  const annotations = responsesAnnotationsOf(resp.finish);
  if (annotations.length > 0) {
    const lastMessage = output.findLast((item) => item.type === 'message');
    const first = lastMessage?.content[0];
    if (first !== undefined) first.annotations = annotations;
  }
  // The item being written when an answer was cut is the incomplete one.
  const last = output[output.length - 1];
  if (status !== 'completed' && last !== undefined && (last.type === 'message' || last.type === 'function_call'))
    last.status = 'incomplete';
  let error: ResponsesResponseHead['error'] = null;
  if (status === 'failed') {
    error = { code: FINISHED_WITH_ERROR.code, message: FINISHED_WITH_ERROR.message };
    output.push({ id: itemId('err', tail, output.length), type: 'error', code: error.code, message: error.message });
  }
  return responseObject(
    meta,
    echoOf(req),
    status,
    error,
    incompleteDetailsOf(resp.finish),
    output,
    encodeResponsesUsage(resp.usage, meta.cost),
  );
}

/** The Response object in the vendor's field order; the stream's lifecycle events hold the same. */
export function responseObject(
  meta: ResponseMeta,
  echo: ResponsesEchoJson,
  status: ResponsesResponseHead['status'],
  error: ResponsesResponseHead['error'],
  incompleteDetails: ResponsesResponseHead['incomplete_details'],
  output: OutputItem[],
  usage: ResponsesUsage | null,
): ResponsesResponse {
  return {
    id: `resp_${responseIdTail(meta.id)}`,
    object: 'response',
    created_at: meta.created,
    created: meta.created,
    status,
    error,
    incomplete_details: incompleteDetails,
    model: meta.model,
    provider: meta.provider,
    output,
    ...echo,
    usage,
  };
}
