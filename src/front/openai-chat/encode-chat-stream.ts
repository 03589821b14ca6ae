import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatResponseMeta } from './encode-chat-response.ts';
import { encodeChatUsage } from './encode-chat-usage.ts';
import { mcpCallItem } from '../shared/encode-mcp-call.ts';

// Stream parts → chat completion chunks, as the SSE text to write. This is the per-chunk
// hot path: the fields every chunk shares are serialized once, in the constructor, and a
// chunk is that head, a constant template and JSON.stringify of the one dynamic value.
//
// The stream always ends with a usage chunk (`choices: []`) and `data: [DONE]`, whether
// or not the client sent `stream_options.include_usage`: OpenRouter behaves so, and the
// official clients accept the extra chunk.

const ROLE_CHOICES =
  '[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null,"native_finish_reason":null}]}\n\n';
const DELTA_OPEN = '[{"index":0,"delta":{';
const DELTA_CLOSE = '},"logprobs":null,"finish_reason":null,"native_finish_reason":null}]}\n\n';
const DONE = 'data: [DONE]\n\n';

function searchDelta(reason: FinishReason): string {
  const delta: Record<string, unknown> = {};
  if (reason.citations !== undefined && reason.citations.length > 0) delta.citations = reason.citations;
  if (reason.annotations !== undefined && reason.annotations.length > 0) delta.annotations = reason.annotations;
  if (reason.searchSkipped !== undefined) delta.web_search = { status: 'skipped', reason: reason.searchSkipped };
  return JSON.stringify(delta);
}

export class ChatStreamEncoder {
  /** `data: {` + the shared fields + `"choices":`; each chunk appends its choices. */
  private readonly head: string;
  private readonly excludeReasoning: boolean;
  /** Canonical tool-call index → OpenAI `tool_calls[].index` (0, 1, ... in order of start). */
  private readonly toolIndex = new Map<number, number>();
  private usage: Usage | null = null;

  constructor(meta: ChatResponseMeta) {
    this.head =
      `data: {"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${JSON.stringify(meta.created)},` +
      `"model":${JSON.stringify(meta.model)},"provider":${JSON.stringify(meta.provider)},"system_fingerprint":null,"choices":`;
    this.excludeReasoning = meta.excludeReasoning;
  }

  /** The role chunk, sent before any content. */
  start(): string {
    return this.head + ROLE_CHOICES;
  }

  push(part: StreamPart): string {
    switch (part.type) {
      case 'text-delta':
        if (part.text.length === 0) return '';
        // A plain text (the fast lane) needs no escaping: quoted as is, it is what JSON.stringify would give.
        if (part.plain === true) return this.head + DELTA_OPEN + '"content":"' + part.text + '"' + DELTA_CLOSE;
        return this.head + DELTA_OPEN + '"content":' + JSON.stringify(part.text) + DELTA_CLOSE;
      case 'reasoning-delta':
        if (this.excludeReasoning || part.text.length === 0) return '';
        return this.head + DELTA_OPEN + '"reasoning":' + JSON.stringify(part.text) + DELTA_CLOSE;
      case 'tool-call-start': {
        if (this.toolIndex.has(part.index)) return '';
        const index = this.toolIndex.size;
        this.toolIndex.set(part.index, index);
        return (
          this.head +
          DELTA_OPEN +
          '"tool_calls":[{"index":' +
          index +
          ',"id":' +
          JSON.stringify(part.id) +
          ',"type":"function","function":{"name":' +
          JSON.stringify(part.name) +
          ',"arguments":""}}]' +
          DELTA_CLOSE
        );
      }
      case 'tool-call-delta': {
        const index = this.toolIndex.get(part.index);
        if (index === undefined || part.argumentsDelta.length === 0) return '';
        return (
          this.head +
          DELTA_OPEN +
          '"tool_calls":[{"index":' +
          index +
          ',"function":{"arguments":' +
          JSON.stringify(part.argumentsDelta) +
          '}}]' +
          DELTA_CLOSE
        );
      }
      case 'audio-delta': {
        // OpenAI's `delta.audio`: each chunk holds what this piece has (the id on the first).
        const audio: Record<string, string | number> = {};
        if (part.id !== undefined) audio.id = part.id;
        if (part.data !== undefined && part.data.length > 0) audio.data = part.data;
        if (part.transcript !== undefined && part.transcript.length > 0) audio.transcript = part.transcript;
        if (part.format !== undefined) audio.format = part.format;
        if (part.expiresAt !== undefined) audio.expires_at = part.expiresAt;
        if (Object.keys(audio).length === 0) return '';
        return this.head + DELTA_OPEN + '"audio":' + JSON.stringify(audio) + DELTA_CLOSE;
      }
      case 'image-output':
        // OpenRouter's `delta.images`: each image whole, in a chunk of its own.
        return (
          this.head + DELTA_OPEN + '"images":[{"type":"image_url","image_url":{"url":' + JSON.stringify(part.url) + '}}]' + DELTA_CLOSE
        );
      case 'finish': {
        // Citations arrive with the finish (xAI sends them last), so they ride in its delta.
        const citations = part.reason.citations;
        let delta = citations === undefined || citations.length === 0 ? '{}' : '{"citations":' + JSON.stringify(citations) + '}';
        // A web search the gateway ran: its annotations (or why it was skipped) in the same delta.
        if (part.reason.annotations !== undefined || part.reason.searchSkipped !== undefined) delta = searchDelta(part.reason);
        return (
          this.head +
          '[{"index":0,"delta":' +
          delta +
          ',"logprobs":null,"finish_reason":' +
          JSON.stringify(part.reason.unified) +
          ',"native_finish_reason":' +
          JSON.stringify(part.reason.raw) +
          '}]}\n\n'
        );
      }
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'error':
        return this.error(part.error);
      case 'server-tool-call':
        // The gateway's extension (docs/tools.md): each MCP call as it starts and as it ends, same id.
        return this.head + DELTA_OPEN + '"mcp_calls":[' + JSON.stringify(mcpCallItem(part.call)) + ']' + DELTA_CLOSE;
      // The chat format has no field for these: signatures and redacted reasoning only
      // matter for replay, which chat clients do with plain `reasoning` text.
      case 'stream-start':
      case 'reasoning-signature':
      case 'reasoning-redacted':
      case 'tool-call-end':
      case 'server-tool-list':
      // Task answers never stream (their routes are not chat dialects).
      case 'task-result':
        return '';
      default:
        return assertNever(part);
    }
  }

  /** The usage chunk (always sent, `choices: []`) and the `[DONE]` terminator. */
  end(cost?: number): string {
    return this.head + '[],"usage":' + JSON.stringify(encodeChatUsage(this.usage, cost)) + '}\n\n' + DONE;
  }

  /** An error during the stream, as a data line holding the error record. */
  error(err: GatewayError): string {
    return 'data: ' + JSON.stringify(err.toRecord()) + '\n\n';
  }
}
