import type { Endpoint } from '../../catalog/types.ts';
import { truncateRaw, unusableAnswerError } from '../http/upstream-error.ts';
import type { SseEvent } from '../sse/parse-sse.ts';
import type { PartSink, StreamDecoder } from '../types.ts';
import type {
  AnthropicContentBlockWire,
  AnthropicDeltaWire,
  AnthropicStreamEventWire,
  AnthropicUsageWire,
} from './anthropic-wire-types.ts';
import { convertAnthropicUsage, mergeAnthropicUsage } from './convert-anthropic-usage.ts';
import { anthropicEventError } from './decode-anthropic-error.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import { plainTextDeltaOf, type BlockIndexOut } from './anthropic-event-fast-lane.ts';
import { parseEventObject } from '../sse/parse-event-object.ts';

const TEXT = 0;
const THINKING = 1;
const TOOL = 2;
/** Redacted thinking (whole in its start event), server-tool and unknown blocks. */
const OTHER = 3;

/** One open content block. Fields all set at creation, so every block has one shape. */
interface BlockState {
  kind: number;
  /** Canonical tool-call index, for tool blocks. */
  toolIndex: number;
  /** A tool block got at least one non-empty argument fragment. */
  sawArguments: boolean;
  /** A signature that came in the start event rather than as a signature_delta. */
  signature: string | null;
  /** A tool block's input given whole in its start event (proxies do this). */
  input: string | null;
}

let fastLaneEvents = 0;

/** Events this process read through the fast lane so far (tests check the lane is taken). */
export function fastLaneEventCount(): number {
  return fastLaneEvents;
}

/**
 * Decodes an Anthropic Messages SSE stream into stream parts (reference §2): blocks by
 * index, `signature_delta` → reasoning-signature, redacted thinking whole at its start,
 * tool input from `input_json_delta` fragments (none at all means `{}`), citations, pings
 * and unknown events ignored, `error` events → an error part. Usage is cumulative across
 * `message_start` and the `message_delta`s; one usage part follows the finish.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  private readonly endpoint: Endpoint;
  private readonly emit: PartSink;
  private started = false;
  /** `message_stop` seen, or an error emitted: nothing more is owed. */
  private closed = false;
  private readonly blocks = new Map<number, BlockState>();
  private toolCount = 0;
  private stopReason: string | null = null;
  private stopSequence: string | null = null;
  private usage: AnthropicUsageWire | null = null;
  private readonly laneIndex: BlockIndexOut = { index: 0 };

  constructor(endpoint: Endpoint, emit: PartSink) {
    this.endpoint = endpoint;
    this.emit = emit;
  }

  onEvent(event: SseEvent): void {
    if (this.closed) return;
    // The fast lane (anthropic-event-fast-lane.ts): a plain text delta, read without parsing.
    const text = plainTextDeltaOf(event.data, this.laneIndex);
    if (text !== null) {
      fastLaneEvents++;
      const state = this.blocks.get(this.laneIndex.index);
      if (state !== undefined && state.kind === TEXT && text.length > 0) this.emit({ type: 'text-delta', text, plain: true });
      return;
    }
    const parsed = parseEventObject(event.data);
    if ('problem' in parsed) {
      this.fail(parsed.problem, truncateRaw(event.data));
      return;
    }
    const e = parsed.value as AnthropicStreamEventWire;
    // The data's `type` names the event; the SSE event name is only a fallback for proxies.
    const type = typeof e.type === 'string' ? e.type : event.event;
    switch (type) {
      case 'content_block_delta':
        this.onDelta(e.index, e.delta);
        return;
      case 'message_start':
        this.onMessageStart(e);
        return;
      case 'content_block_start':
        this.onBlockStart(e.index, e.content_block);
        return;
      case 'content_block_stop':
        this.onBlockStop(e.index);
        return;
      case 'message_delta':
        this.onMessageDelta(e);
        return;
      case 'message_stop':
        this.complete();
        return;
      case 'error':
        this.closeTools();
        this.closed = true;
        this.emit({ type: 'error', error: anthropicEventError(this.endpoint, e) });
        return;
      default:
        // `ping`, and event types added after this was written (the API says to ignore them).
        return;
    }
  }

  end(): void {
    if (this.closed) return;
    // A stop reason means the answer is whole even if the connection dropped before `message_stop`.
    if (this.stopReason !== null) this.complete();
    else this.fail('upstream stream ended before completion', null);
  }

  private onMessageStart(e: AnthropicStreamEventWire): void {
    const m = e.message;
    this.start(typeof m?.id === 'string' ? m.id : undefined, typeof m?.model === 'string' ? m.model : undefined);
    if (m !== null && m !== undefined) this.usage = mergeAnthropicUsage(this.usage, m.usage);
  }

  private start(id: string | undefined, model: string | undefined): void {
    if (this.started) return;
    this.started = true;
    this.emit({ type: 'stream-start', id, model });
  }

  private onBlockStart(index: unknown, block: AnthropicContentBlockWire | null | undefined): void {
    if (typeof index !== 'number' || typeof block !== 'object' || block === null) return;
    this.start(undefined, undefined);
    const state: BlockState = { kind: OTHER, toolIndex: -1, sawArguments: false, signature: null, input: null };
    switch (block.type) {
      case 'text':
        state.kind = TEXT;
        if (typeof block.text === 'string' && block.text.length > 0) this.emit({ type: 'text-delta', text: block.text });
        break;
      case 'thinking':
        state.kind = THINKING;
        if (typeof block.thinking === 'string' && block.thinking.length > 0) this.emit({ type: 'reasoning-delta', text: block.thinking });
        if (typeof block.signature === 'string' && block.signature.length > 0) state.signature = block.signature;
        break;
      case 'redacted_thinking':
        if (typeof block.data === 'string') this.emit({ type: 'reasoning-redacted', data: block.data });
        break;
      case 'tool_use': {
        state.kind = TOOL;
        state.toolIndex = this.toolCount++;
        const id = typeof block.id === 'string' ? block.id : `toolu_${state.toolIndex}`;
        this.emit({ type: 'tool-call-start', index: state.toolIndex, id, name: typeof block.name === 'string' ? block.name : '' });
        const input = block.input;
        if (typeof input === 'object' && input !== null && Object.keys(input).length > 0) state.input = JSON.stringify(input);
        break;
      }
      default:
        break;
    }
    this.blocks.set(index, state);
  }

  private onDelta(index: unknown, delta: AnthropicDeltaWire | null | undefined): void {
    if (typeof index !== 'number' || typeof delta !== 'object' || delta === null) return;
    const state = this.blocks.get(index);
    if (state === undefined) return;
    switch (delta.type) {
      case 'text_delta':
        if (state.kind === TEXT && typeof delta.text === 'string' && delta.text.length > 0)
          this.emit({ type: 'text-delta', text: delta.text });
        return;
      case 'thinking_delta':
        if (state.kind === THINKING && typeof delta.thinking === 'string' && delta.thinking.length > 0) {
          this.emit({ type: 'reasoning-delta', text: delta.thinking });
        }
        return;
      case 'signature_delta':
        if (state.kind === THINKING && typeof delta.signature === 'string' && delta.signature.length > 0) {
          state.signature = null;
          this.emit({ type: 'reasoning-signature', signature: delta.signature });
        }
        return;
      case 'input_json_delta':
        if (state.kind === TOOL && typeof delta.partial_json === 'string' && delta.partial_json.length > 0) {
          state.sawArguments = true;
          this.emit({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: delta.partial_json });
        }
        return;
      default:
        // citations_delta and newer delta types carry nothing canonical.
        return;
    }
  }

  private onBlockStop(index: unknown): void {
    if (typeof index !== 'number') return;
    const state = this.blocks.get(index);
    if (state === undefined) return;
    this.blocks.delete(index);
    if (state.kind === THINKING && state.signature !== null) this.emit({ type: 'reasoning-signature', signature: state.signature });
    else if (state.kind === TOOL) this.endTool(state);
  }

  private endTool(state: BlockState): void {
    if (!state.sawArguments) this.emit({ type: 'tool-call-delta', index: state.toolIndex, argumentsDelta: state.input ?? '{}' });
    this.emit({ type: 'tool-call-end', index: state.toolIndex });
  }

  private onMessageDelta(e: AnthropicStreamEventWire): void {
    const delta = e.delta;
    if (typeof delta === 'object' && delta !== null) {
      if (typeof delta.stop_reason === 'string') this.stopReason = delta.stop_reason;
      if (typeof delta.stop_sequence === 'string') this.stopSequence = delta.stop_sequence;
    }
    this.usage = mergeAnthropicUsage(this.usage, e.usage);
  }

  private complete(): void {
    this.start(undefined, undefined);
    this.closeTools();
    this.closed = true;
    this.emit({ type: 'finish', reason: mapAnthropicStopReason(this.stopReason, this.stopSequence, this.toolCount > 0) });
    if (this.usage !== null) this.emit({ type: 'usage', usage: convertAnthropicUsage(this.usage) });
  }

  /** Tool calls still open when the answer ends or breaks: each is closed, in order. */
  private closeTools(): void {
    if (this.blocks.size === 0) return;
    for (const state of this.blocks.values()) if (state.kind === TOOL) this.endTool(state);
    this.blocks.clear();
  }

  private fail(message: string, raw: unknown): void {
    this.closeTools();
    this.closed = true;
    this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, message, raw) });
  }
}
