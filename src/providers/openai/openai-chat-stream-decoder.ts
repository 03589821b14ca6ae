import type { Endpoint } from '../../catalog/types.ts';
import { truncateRaw, unusableAnswerError } from '../http/upstream-error.ts';
import type { SseEvent } from '../sse/parse-sse.ts';
import type { PartSink, StreamDecoder } from '../types.ts';
import { Base64PieceJoiner } from '../../canonical/join-base64-pieces.ts';
import { emitOpenAIAudio, emitOpenAIImages } from './convert-openai-media-output.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';
import { upstreamErrorMessage } from './decode-openai-error.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import { emitThinking } from './convert-openai-chat-response.ts';
import { citationsOf, finishReasonFor } from './map-openai-finish-reason.ts';
import { learnChunkHead, plainContentOf } from './openai-chunk-fast-lane.ts';
import type { OpenAIChatCompletionWire, OpenAIMessageWire, OpenAIToolCallWire, OpenAIUsageWire } from './openai-chat-wire-types.ts';

/** Upstream tool-call indexes at or above this go through the slow path (no sparse arrays). */
const MAX_DIRECT_INDEX = 256;

let fastLaneChunks = 0;

/** Chunks this process read through the fast lane so far (tests check the lane is taken). */
export function fastLaneChunkCount(): number {
  return fastLaneChunks;
}

/**
 * Decodes an OpenAI chat-completions SSE stream into stream parts. One instance per
 * upstream response; all state lives in fields set in the constructor, and the per-chunk
 * path allocates nothing but the parts it emits.
 *
 * Usage is held until the stream is over: servers that report it on every chunk (vLLM's
 * continuous stats) then yield one usage part, not hundreds. So is the finish, because
 * what belongs on it may come later: xAI sends `citations` on the very last chunk.
 */
export class OpenAIChatStreamDecoder implements StreamDecoder {
  private readonly endpoint: Endpoint;
  private readonly emit: PartSink;
  private started = false;
  private finished = false;
  /** `[DONE]` seen, or an error emitted: nothing more is owed. */
  private closed = false;
  private usage: OpenAIUsageWire | null = null;
  /** The finish, once the upstream gave its reason; emitted when the stream completes. */
  private pendingFinish: FinishReason | null = null;
  private citations: string[] | undefined = undefined;
  private toolCount = 0;
  /** Canonical tool-call index by upstream index. */
  private readonly toolIndexes: number[] = [];
  /** Canonical indexes of tool calls started and not yet ended, in order. */
  private readonly openTools: number[] = [];
  private lastToolIndex = -1;
  private lastToolId: string | null = null;
  private readonly audioData = new Base64PieceJoiner();
  /** The head this stream's chunks repeat, learned from its first chunk; null: no fast lane. */
  private head: string | null = null;

  constructor(endpoint: Endpoint, emit: PartSink) {
    this.endpoint = endpoint;
    this.emit = emit;
  }

  onEvent(event: SseEvent): void {
    if (this.closed) return;
    const data = event.data;
    if (data === '[DONE]') {
      this.complete();
      return;
    }
    // The fast lane (openai-chunk-fast-lane.ts): a plain text chunk, read without parsing.
    const head = this.head;
    if (head !== null && event.event !== 'error') {
      const text = plainContentOf(data, head);
      if (text !== null) {
        fastLaneChunks++;
        if (!this.finished && text.length > 0) this.emit({ type: 'text-delta', text, plain: true });
        return;
      }
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.fail('upstream sent malformed JSON in the stream', truncateRaw(data));
      return;
    }
    if (typeof chunk !== 'object' || chunk === null) {
      this.fail('upstream sent an invalid stream chunk', truncateRaw(data));
      return;
    }
    const c = chunk as OpenAIChatCompletionWire;
    if ((c.error !== undefined && c.error !== null) || event.event === 'error') {
      this.fail(upstreamErrorMessage(c) ?? 'upstream reported an error in the stream', c);
      return;
    }
    if (!this.started) {
      this.started = true;
      this.emit({
        type: 'stream-start',
        id: typeof c.id === 'string' ? c.id : undefined,
        model: typeof c.model === 'string' ? c.model : undefined,
      });
      this.head = learnChunkHead(data);
    }
    if (typeof c.usage === 'object' && c.usage !== null) this.usage = c.usage;
    if (c.citations !== undefined) this.citations = citationsOf(c.citations) ?? this.citations;
    const choices = c.choices;
    if (!Array.isArray(choices) || this.finished) return;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i];
      // The gateway asks for one choice; anything under another index is not ours.
      if (typeof choice !== 'object' || choice === null || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = choice.delta;
      if (typeof delta === 'object' && delta !== null) this.onDelta(delta);
      const reason = choice.finish_reason;
      if (typeof reason === 'string' && reason.length > 0) this.finish(reason);
    }
  }

  end(): void {
    if (this.closed) return;
    this.closeTools();
    this.flushAudio();
    // Some servers stop after the finish chunk without `[DONE]`: the answer is whole.
    this.flushFinish();
    this.flushUsage();
    this.closed = true;
    if (!this.finished)
      this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, 'upstream stream ended before completion', null) });
  }

  private onDelta(delta: OpenAIMessageWire): void {
    const reasoning = delta.reasoning ?? delta.reasoning_content;
    if (typeof reasoning === 'string' && reasoning.length > 0) this.emit({ type: 'reasoning-delta', text: reasoning });
    const content = delta.content;
    if (typeof content === 'string') {
      if (content.length > 0) this.emit({ type: 'text-delta', text: content });
    } else if (Array.isArray(content)) {
      for (let i = 0; i < content.length; i++) {
        const part = content[i];
        if (part?.type === 'text' && typeof part.text === 'string' && part.text.length > 0)
          this.emit({ type: 'text-delta', text: part.text });
        else if (part?.type === 'thinking') emitThinking(part.thinking, this.emit);
      }
    }
    // See convert-openai-chat-response.ts: a refusal is shown as the answer's text.
    const refusal = delta.refusal;
    if (typeof refusal === 'string' && refusal.length > 0) this.emit({ type: 'text-delta', text: refusal });
    emitOpenAIAudio(delta.audio, this.emit, this.audioData);
    emitOpenAIImages(delta.images, this.emit);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      for (let i = 0; i < toolCalls.length; i++) {
        const call = toolCalls[i];
        if (typeof call === 'object' && call !== null) this.onToolCall(call);
      }
    }
  }

  private onToolCall(call: OpenAIToolCallWire): void {
    const index = this.toolIndexFor(call);
    const args = call.function?.arguments;
    if (typeof args === 'string' && args.length > 0) this.emit({ type: 'tool-call-delta', index, argumentsDelta: args });
  }

  /** The canonical index of this fragment's call, starting the call on its first fragment. */
  private toolIndexFor(call: OpenAIToolCallWire): number {
    const upstream = call.index;
    const id = typeof call.id === 'string' && call.id.length > 0 ? call.id : null;
    if (typeof upstream === 'number' && upstream >= 0 && upstream < MAX_DIRECT_INDEX && Number.isInteger(upstream)) {
      const known = this.toolIndexes[upstream];
      if (known !== undefined) return known;
      const index = this.startTool(call, id);
      this.toolIndexes[upstream] = index;
      return index;
    }
    // No usable index (some compatible servers omit it): a new id starts a new call, and a
    // fragment without one continues the last.
    if (this.lastToolIndex >= 0 && (id === null || id === this.lastToolId)) return this.lastToolIndex;
    return this.startTool(call, id);
  }

  private startTool(call: OpenAIToolCallWire, id: string | null): number {
    const index = this.toolCount++;
    const name = call.function?.name;
    this.emit({ type: 'tool-call-start', index, id: id ?? `call_${index}`, name: typeof name === 'string' ? name : '' });
    this.openTools.push(index);
    this.lastToolIndex = index;
    this.lastToolId = id;
    return index;
  }

  private finish(raw: string): void {
    this.finished = true;
    this.closeTools();
    this.pendingFinish = finishReasonFor(raw, this.toolCount > 0);
  }

  /** `[DONE]`: the upstream says the answer is whole, even if it never gave a reason. */
  private complete(): void {
    this.closeTools();
    this.flushAudio();
    if (!this.finished) {
      this.finished = true;
      this.pendingFinish = finishReasonFor(null, this.toolCount > 0);
    }
    this.flushFinish();
    this.flushUsage();
    this.closed = true;
  }

  /** Audio bytes a padded piece left over (join-base64-pieces.ts), before the finish. */
  private flushAudio(): void {
    const rest = this.audioData.flush();
    if (rest.length > 0) this.emit({ type: 'audio-delta', data: rest });
  }

  private flushFinish(): void {
    const reason = this.pendingFinish;
    if (reason === null) return;
    this.pendingFinish = null;
    if (this.citations !== undefined) reason.citations = this.citations;
    this.emit({ type: 'finish', reason });
  }

  private closeTools(): void {
    const open = this.openTools;
    for (let i = 0; i < open.length; i++) this.emit({ type: 'tool-call-end', index: open[i]! });
    open.length = 0;
  }

  private flushUsage(): void {
    if (this.usage === null) return;
    const usage = convertOpenAIUsage(this.usage);
    this.usage = null;
    this.emit({ type: 'usage', usage });
  }

  private fail(message: string, raw: unknown): void {
    this.closed = true;
    this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, message, raw) });
  }
}
