import type { CanonicalResponse } from '../../canonical/response.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { encodeChatUsage, type ChatUsage } from './encode-chat-usage.ts';
import type { ResponseMeta } from '../front-dialect.ts';

// A whole answer → the chat completion body (spec "Chat completion response" in OpenAI's
// wire shape, with OpenRouter's `provider`, `reasoning` and `native_finish_reason`).

/** The chat dialect needs nothing beyond the common response meta. */
export type ChatResponseMeta = ResponseMeta;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  reasoning?: string;
  tool_calls?: ChatToolCall[];
  /** URLs the answer cites (xAI live search), when the provider lists them. */
  citations?: string[];
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  provider: string;
  system_fingerprint: null;
  choices: [{
    index: 0;
    message: ChatCompletionMessage;
    logprobs: null;
    finish_reason: string | null;
    native_finish_reason: string | null;
  }];
  usage: ChatUsage;
}

export function encodeChatResponse(resp: CanonicalResponse, meta: ChatResponseMeta): ChatCompletion {
  let content: string | null = null;
  let reasoning: string | null = null;
  let toolCalls: ChatToolCall[] | null = null;
  for (const part of resp.content) {
    switch (part.type) {
      case 'text':
        content = content === null ? part.text : content + part.text;
        break;
      case 'reasoning':
        if (part.text.length > 0) reasoning = reasoning === null ? part.text : reasoning + part.text;
        break;
      case 'tool-call':
        (toolCalls ??= []).push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      case 'redacted-reasoning':
        // Encrypted reasoning has no chat-format field; a client could not replay it anyway.
        break;
      default:
        assertNever(part);
    }
  }

  const message: ChatCompletionMessage = { role: 'assistant', content, refusal: null };
  if (reasoning !== null && !meta.excludeReasoning) message.reasoning = reasoning;
  if (toolCalls !== null) message.tool_calls = toolCalls;
  const citations = resp.finish?.citations;
  if (citations !== undefined && citations.length > 0) message.citations = citations;

  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    provider: meta.provider,
    system_fingerprint: null,
    choices: [{
      index: 0,
      message,
      logprobs: null,
      finish_reason: resp.finish?.unified ?? null,
      native_finish_reason: resp.finish?.raw ?? null,
    }],
    usage: encodeChatUsage(resp.usage, meta.cost),
  };
}
