import type { Endpoint } from '../../catalog/types.ts';
import { parseRawBody, unusableAnswerError } from '../http/upstream-error.ts';
import type { PartSink } from '../types.ts';
import { emitOpenAIAudio, emitOpenAIImages } from './convert-openai-media-output.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';
import { upstreamErrorMessage } from './decode-openai-error.ts';
import { citationsOf, finishReasonFor } from './map-openai-finish-reason.ts';
import type { OpenAIChatCompletionWire, OpenAIMessageWire, OpenAIToolCallWire } from './openai-chat-wire-types.ts';

/**
 * A whole chat completion as stream parts, in the order a stream would give them, so the
 * fold of these parts equals the fold of the same answer streamed. `body` is the parsed JSON,
 * or the text when it did not parse.
 */
export function convertOpenAIChatResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void {
  const completion = typeof body === 'string' ? parseRawBody(body) : body;
  if (typeof completion !== 'object' || completion === null || Array.isArray(completion)) {
    emit({ type: 'error', error: unusableAnswerError(endpoint, 'upstream returned an invalid chat completion', completion) });
    return;
  }
  const c = completion as OpenAIChatCompletionWire;
  if (c.error !== undefined && c.error !== null) {
    const message = upstreamErrorMessage(c) ?? 'upstream returned an error';
    emit({ type: 'error', error: unusableAnswerError(endpoint, message, c) });
    return;
  }
  const choice = Array.isArray(c.choices) ? c.choices[0] : undefined;
  const message = typeof choice === 'object' && choice !== null ? choice.message : undefined;
  if (typeof message !== 'object' || message === null) {
    emit({ type: 'error', error: unusableAnswerError(endpoint, 'upstream returned an invalid chat completion', c) });
    return;
  }

  emit({ type: 'stream-start', id: typeof c.id === 'string' ? c.id : undefined, model: typeof c.model === 'string' ? c.model : undefined });
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (typeof reasoning === 'string' && reasoning.length > 0) emit({ type: 'reasoning-delta', text: reasoning });
  emitContent(message, emit);
  emitOpenAIAudio(message.audio, emit);
  emitOpenAIImages(message.images, emit);
  const sawToolCalls = emitToolCalls(message, emit);
  const raw = typeof choice!.finish_reason === 'string' ? choice!.finish_reason : null;
  const reason = finishReasonFor(raw, sawToolCalls);
  const citations = citationsOf(c.citations);
  if (citations !== undefined) reason.citations = citations;
  emit({ type: 'finish', reason });
  if (typeof c.usage === 'object' && c.usage !== null) emit({ type: 'usage', usage: convertOpenAIUsage(c.usage) });
}

function emitContent(message: OpenAIMessageWire, emit: PartSink): void {
  const content = message.content;
  if (typeof content === 'string') {
    if (content.length > 0) emit({ type: 'text-delta', text: content });
  } else if (Array.isArray(content)) {
    // Mistral-style servers answer with parts: text, and Magistral's thinking; other kinds have no canonical home.
    for (const part of content) {
      if (part?.type === 'text' && typeof part.text === 'string' && part.text.length > 0) emit({ type: 'text-delta', text: part.text });
      else if (part?.type === 'thinking') emitThinking(part.thinking, emit);
    }
  }
  // A refusal is what the model said instead of the answer; dropping it would leave the
  // client with an empty, unexplained reply.
  if (typeof message.refusal === 'string' && message.refusal.length > 0) emit({ type: 'text-delta', text: message.refusal });
}

function emitToolCalls(message: OpenAIMessageWire, emit: PartSink): boolean {
  let index = 0;
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (typeof call !== 'object' || call === null) continue;
      emitToolCall(index, call, emit);
      index++;
    }
  }
  const legacy = message.function_call;
  if (index === 0 && typeof legacy === 'object' && legacy !== null) {
    emitToolCall(0, { id: 'call_0', function: legacy }, emit);
    index = 1;
  }
  return index > 0;
}

function emitToolCall(index: number, call: OpenAIToolCallWire, emit: PartSink): void {
  const fn = call.function;
  const id = typeof call.id === 'string' && call.id.length > 0 ? call.id : `call_${index}`;
  const name = typeof fn?.name === 'string' ? fn.name : '';
  emit({ type: 'tool-call-start', index, id, name });
  const args = fn?.arguments;
  if (typeof args === 'string' && args.length > 0) emit({ type: 'tool-call-delta', index, argumentsDelta: args });
  emit({ type: 'tool-call-end', index });
}

/** Mistral's `thinking` part: an array of text parts. */
export function emitThinking(thinking: unknown, emit: PartSink): void {
  if (!Array.isArray(thinking)) return;
  for (const piece of thinking) {
    const text = (piece as { type?: unknown; text?: unknown } | null)?.text;
    if (typeof text === 'string' && text.length > 0) emit({ type: 'reasoning-delta', text });
  }
}
