import type { Endpoint } from '../../catalog/types.ts';
import { truncateRaw, unusableAnswerError } from '../http/upstream-error.ts';
import type { SseEvent } from '../sse/parse-sse.ts';
import type { PartSink, StreamDecoder } from '../types.ts';
import type { ConverseBlockWire, ConverseStreamEventWire, ConverseUsageWire } from './bedrock-wire-types.ts';
import { convertConverseUsage } from './convert-converse-usage.ts';
import { bedrockStreamError } from './decode-bedrock-error.ts';
import { mapConverseStopReason } from './map-converse-stop-reason.ts';
import { parseEventObject } from '../sse/parse-event-object.ts';

/** One open tool-use block. */
interface ToolBlock {
  index: number;
  sawArguments: boolean;
}

/**
 * Decodes ConverseStream frames (each an SseEvent named by its `:event-type`, see
 * providers/eventstream/) into stream parts (reference §5): text deltas need no start,
 * tool-use blocks open with `contentBlockStart` and take JSON fragments, reasoning comes as
 * text and signature deltas; `messageStop` carries the stop reason, `metadata` (after it)
 * the usage. An exception frame becomes an error part.
 */
export class ConverseStreamDecoder implements StreamDecoder {
  private readonly endpoint: Endpoint;
  private readonly emit: PartSink;
  private started = false;
  /** `messageStop` seen: the finish part is out. */
  private finished = false;
  private closed = false;
  private readonly tools = new Map<number, ToolBlock>();
  private toolCount = 0;
  private stopReason: string | null = null;
  private usage: ConverseUsageWire | null = null;

  constructor(endpoint: Endpoint, emit: PartSink) {
    this.endpoint = endpoint;
    this.emit = emit;
  }

  onEvent(event: SseEvent): void {
    if (this.closed) return;
    const name = event.event ?? '';
    if (name.startsWith('exception:') || name.startsWith('error:')) {
      this.closeTools();
      this.closed = true;
      this.emit({ type: 'error', error: bedrockStreamError(this.endpoint, name.slice(name.indexOf(':') + 1), event.data) });
      return;
    }
    const parsed = parseEventObject(event.data);
    if ('problem' in parsed) {
      this.fail(parsed.problem, truncateRaw(event.data));
      return;
    }
    const e = parsed.value as ConverseStreamEventWire;
    switch (name) {
      case 'messageStart':
        this.start();
        return;
      case 'contentBlockStart':
        this.onBlockStart(e.contentBlockIndex, e.start);
        return;
      case 'contentBlockDelta':
        this.onDelta(e.contentBlockIndex, e.delta);
        return;
      case 'contentBlockStop':
        this.onBlockStop(e.contentBlockIndex);
        return;
      case 'messageStop':
        if (typeof e.stopReason === 'string') this.stopReason = e.stopReason;
        this.finish();
        return;
      case 'metadata':
        if (typeof e.usage === 'object' && e.usage !== null) this.usage = e.usage;
        this.complete();
        return;
      default:
        // Event types added after this was written carry nothing canonical.
        return;
    }
  }

  end(): void {
    if (this.closed) return;
    // A stop reason means the answer is whole even if the usage never came.
    if (this.stopReason !== null) this.complete();
    else this.fail('upstream stream ended before completion', null);
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.emit({ type: 'stream-start' });
  }

  private onBlockStart(index: unknown, start: ConverseBlockWire | null | undefined): void {
    if (typeof index !== 'number' || typeof start !== 'object' || start === null) return;
    this.start();
    const tool = start.toolUse;
    if (typeof tool !== 'object' || tool === null) return;
    const block: ToolBlock = { index: this.toolCount++, sawArguments: false };
    this.tools.set(index, block);
    const id = typeof tool.toolUseId === 'string' ? tool.toolUseId : `tooluse_${block.index}`;
    this.emit({ type: 'tool-call-start', index: block.index, id, name: typeof tool.name === 'string' ? tool.name : '' });
  }

  private onDelta(index: unknown, delta: ConverseBlockWire | null | undefined): void {
    if (typeof delta !== 'object' || delta === null) return;
    this.start();
    if (typeof delta.text === 'string') {
      if (delta.text.length > 0) this.emit({ type: 'text-delta', text: delta.text });
      return;
    }
    const reasoning = delta.reasoningContent;
    if (typeof reasoning === 'object' && reasoning !== null) {
      if (typeof reasoning.text === 'string' && reasoning.text.length > 0) this.emit({ type: 'reasoning-delta', text: reasoning.text });
      if (typeof reasoning.signature === 'string' && reasoning.signature.length > 0)
        this.emit({ type: 'reasoning-signature', signature: reasoning.signature });
      if (typeof reasoning.redactedContent === 'string') this.emit({ type: 'reasoning-redacted', data: reasoning.redactedContent });
      return;
    }
    const tool = delta.toolUse;
    const block = typeof index === 'number' ? this.tools.get(index) : undefined;
    if (typeof tool === 'object' && tool !== null && block !== undefined && typeof tool.input === 'string' && tool.input.length > 0) {
      block.sawArguments = true;
      this.emit({ type: 'tool-call-delta', index: block.index, argumentsDelta: tool.input });
    }
  }

  private onBlockStop(index: unknown): void {
    if (typeof index !== 'number') return;
    const block = this.tools.get(index);
    if (block === undefined) return;
    this.tools.delete(index);
    this.endTool(block);
  }

  private endTool(block: ToolBlock): void {
    if (!block.sawArguments) this.emit({ type: 'tool-call-delta', index: block.index, argumentsDelta: '{}' });
    this.emit({ type: 'tool-call-end', index: block.index });
  }

  /** `messageStop`: the finish part; the usage follows in `metadata`. */
  private finish(): void {
    if (this.finished) return;
    this.start();
    this.closeTools();
    this.finished = true;
    this.emit({ type: 'finish', reason: mapConverseStopReason(this.stopReason, this.toolCount > 0) });
  }

  private complete(): void {
    this.finish();
    this.closed = true;
    if (this.usage !== null) this.emit({ type: 'usage', usage: convertConverseUsage(this.usage) });
  }

  private closeTools(): void {
    if (this.tools.size === 0) return;
    for (const block of this.tools.values()) this.endTool(block);
    this.tools.clear();
  }

  private fail(message: string, raw: unknown): void {
    this.closeTools();
    this.closed = true;
    this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, message, raw) });
  }
}
