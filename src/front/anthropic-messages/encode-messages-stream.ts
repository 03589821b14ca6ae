import type { CanonicalRequest } from '../../canonical/request.ts';
import { mcpToolResultBlock, mcpToolUseBlock } from './encode-messages-mcp.ts';
import { admittedPromptTokens } from '../../canonical/estimate-tokens.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { DialectStreamEncoder, ResponseMeta } from '../front-dialect.ts';
import { encodeMessagesUsage } from './encode-messages-usage.ts';
import { mapMessagesStopReason, stopSequenceOf } from './map-messages-stop-reason.ts';
import { messagesErrorBody } from './render-messages-error.ts';

// Stream parts → Anthropic's SSE events (reference §2): every event has an `event:` line
// and a `data:` payload with the same `type`. `message_start` first; then content blocks
// in index order, each start → deltas → stop; then `message_delta` (stop reason and
// cumulative usage) and `message_stop`. As in the whole answer, the message names its
// `provider` and the final usage has the `cost` in USD when known.
//
// `message_start` announces the input: the upstream's figures (cache reads and writes
// apart) when its usage arrived before the answer started (`primeUsage`), else the
// gateway's estimate; the final `message_delta` has the upstream's.
//
// Canonical parts are deltas without block boundaries, so this encoder opens a block when
// the kind of content changes and closes the open one before the next starts:
// - thinking: start `{thinking: "", signature: ""}`, `thinking_delta`s, and the signature
//   as one `signature_delta` right before the stop (a signature part ends the block);
// - redacted thinking: whole in `content_block_start`, stopped at once;
// - tool calls: start `{id, name, input: {}}`, `input_json_delta`s, stop on the call's end.
// Arguments of a call that is no longer the open block (servers interleaving parallel
// calls) still go to that call's index, which clients accumulate by.
//
// Per-chunk hot path: each delta is a constant template around JSON.stringify of its text.

const NONE = 0;
const TEXT = 1;
const THINKING = 2;
const TOOL = 3;

const BLOCK_DELTA = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":';
const BLOCK_START = 'event: content_block_start\ndata: {"type":"content_block_start","index":';
const BLOCK_STOP = 'event: content_block_stop\ndata: {"type":"content_block_stop","index":';
const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
const END = '}\n\n';

/** What Anthropic sends as `output_tokens` before anything was generated. */
const OUTPUT_PLACEHOLDER = 1;

export class MessagesStreamEncoder implements DialectStreamEncoder {
  private readonly meta: ResponseMeta;
  private readonly req: CanonicalRequest | undefined;
  private inputEstimate = 0;
  /** Index of the next block to open. */
  private next = 0;
  private open = NONE;
  private openIndex = -1;
  /** Canonical index of the open tool call, when a tool block is open. */
  private openTool = -1;
  /** Canonical tool-call index → block index. */
  private readonly toolBlocks = new Map<number, number>();
  private finish: FinishReason | null = null;
  private usage: Usage | null = null;
  /** The upstream's usage known before `start()`. */
  private primed: Usage | null = null;
  private failed = false;

  constructor(meta: ResponseMeta, req?: CanonicalRequest) {
    this.meta = meta;
    this.req = req;
  }

  /** The upstream's usage arrived before the answer: `message_start` reports its input side. */
  primeUsage(usage: Usage): void {
    this.primed = usage;
    this.usage = usage;
  }

  /** `message_start`, with the input (the upstream's when primed, else estimated) and Anthropic's small output placeholder. */
  start(): string {
    const primed = this.primed;
    let usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
    if (primed !== null) {
      const known = encodeMessagesUsage(primed, 0);
      usage = {
        input_tokens: known.input_tokens,
        cache_creation_input_tokens: known.cache_creation_input_tokens,
        cache_read_input_tokens: known.cache_read_input_tokens,
        output_tokens: OUTPUT_PLACEHOLDER,
      };
    } else {
      this.inputEstimate = this.req === undefined ? 0 : admittedPromptTokens(this.req);
      usage = {
        input_tokens: this.inputEstimate,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: OUTPUT_PLACEHOLDER,
      };
    }
    const message = {
      id: this.meta.id,
      type: 'message',
      role: 'assistant',
      content: [],
      model: this.meta.model,
      provider: this.meta.provider,
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    return 'event: message_start\ndata: {"type":"message_start","message":' + JSON.stringify(message) + END;
  }

  push(part: StreamPart): string {
    if (this.failed) return '';
    switch (part.type) {
      case 'text-delta': {
        if (part.text.length === 0) return '';
        const head = this.open === TEXT ? '' : this.openBlock(TEXT, '{"type":"text","text":""}');
        // A plain text (the fast lane) needs no escaping: quoted as is, it is what JSON.stringify would give.
        const quoted = part.plain === true ? '"' + part.text + '"' : JSON.stringify(part.text);
        return head + BLOCK_DELTA + this.openIndex + ',"delta":{"type":"text_delta","text":' + quoted + '}' + END;
      }
      case 'reasoning-delta': {
        // Omitted thinking keeps only its signature, which opens the block when it comes
        // (an Anthropic upstream, asked for `display: 'omitted'` too, sends no text at all).
        if (part.text.length === 0 || this.meta.excludeReasoning) return '';
        const head = this.open === THINKING ? '' : this.openBlock(THINKING, '{"type":"thinking","thinking":"","signature":""}');
        return (
          head + BLOCK_DELTA + this.openIndex + ',"delta":{"type":"thinking_delta","thinking":' + JSON.stringify(part.text) + '}' + END
        );
      }
      case 'reasoning-signature': {
        const head = this.open === THINKING ? '' : this.openBlock(THINKING, '{"type":"thinking","thinking":"","signature":""}');
        return (
          head +
          BLOCK_DELTA +
          this.openIndex +
          ',"delta":{"type":"signature_delta","signature":' +
          JSON.stringify(part.signature) +
          '}' +
          END +
          this.closeBlock()
        );
      }
      case 'reasoning-redacted':
        return this.openBlock(NONE, '{"type":"redacted_thinking","data":' + JSON.stringify(part.data) + '}') + this.closeBlock();
      case 'tool-call-start': {
        if (this.toolBlocks.has(part.index)) return '';
        const head = this.openBlock(
          TOOL,
          '{"type":"tool_use","id":' + JSON.stringify(part.id) + ',"name":' + JSON.stringify(part.name) + ',"input":{}}',
        );
        this.openTool = part.index;
        this.toolBlocks.set(part.index, this.openIndex);
        return head;
      }
      case 'tool-call-delta': {
        const index = this.toolBlocks.get(part.index);
        if (index === undefined || part.argumentsDelta.length === 0) return '';
        return (
          BLOCK_DELTA + index + ',"delta":{"type":"input_json_delta","partial_json":' + JSON.stringify(part.argumentsDelta) + '}' + END
        );
      }
      case 'tool-call-end':
        return this.open === TOOL && this.openTool === part.index ? this.closeBlock() : '';
      case 'finish':
        this.finish = part.reason;
        return '';
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'error':
        return this.error(part.error);
      case 'stream-start':
      // The tool list has no block in the MCP connector's answer.
      case 'server-tool-list':
        return '';
      case 'server-tool-call': {
        // The MCP connector's blocks: `mcp_tool_use` as the call starts, `mcp_tool_result` once it ended.
        const call = part.call;
        if (call.status === 'in_progress') {
          // As Anthropic streams it: the block with an empty input, the input as one delta, the stop.
          const head = this.openBlock(NONE, JSON.stringify({ ...mcpToolUseBlock(call), input: {} }));
          const args = call.arguments.length === 0 ? '{}' : call.arguments;
          return (
            head +
            BLOCK_DELTA +
            this.openIndex +
            ',"delta":{"type":"input_json_delta","partial_json":' +
            JSON.stringify(args) +
            '}' +
            END +
            this.closeBlock()
          );
        }
        return this.openBlock(NONE, JSON.stringify(mcpToolResultBlock(call))) + this.closeBlock();
      }
      // No block for generated audio or images: see encode-messages-response.ts.
      case 'audio-delta':
      case 'image-output':
      // Task answers never stream (their routes are not chat dialects).
      case 'task-result':
        return '';
      default:
        return assertNever(part);
    }
  }

  /** Closes the open block, then `message_delta` (stop reason, cumulative usage with the cost in USD when known) and `message_stop`. */
  end(cost?: number): string {
    if (this.failed) return '';
    const stopReason = mapMessagesStopReason(this.finish, this.toolBlocks.size > 0);
    const delta = {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: stopSequenceOf(this.finish, stopReason) },
      usage: encodeMessagesUsage(this.usage, this.inputEstimate, cost),
    };
    return this.closeBlock() + 'event: message_delta\ndata: ' + JSON.stringify(delta) + '\n\n' + MESSAGE_STOP;
  }

  /**
   * An `error` event; the stream ends after it. Works before `start()` too (a keep-alive
   * may have opened the response before any answer), and only the first error is sent.
   */
  error(err: GatewayError): string {
    if (this.failed) return '';
    this.failed = true;
    return 'event: error\ndata: ' + JSON.stringify(messagesErrorBody(err)) + '\n\n';
  }

  /** Closes the open block and starts block `next` with `contentBlock` (JSON text). */
  private openBlock(kind: number, contentBlock: string): string {
    const close = this.closeBlock();
    this.open = kind;
    this.openIndex = this.next++;
    return close + BLOCK_START + this.openIndex + ',"content_block":' + contentBlock + END;
  }

  private closeBlock(): string {
    if (this.openIndex === -1) return '';
    const index = this.openIndex;
    this.open = NONE;
    this.openIndex = -1;
    this.openTool = -1;
    return BLOCK_STOP + index + END;
  }
}
