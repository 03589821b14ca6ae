import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { DialectStreamEncoder, ResponseMeta } from '../front-dialect.ts';
import { echoOf } from './responses-echo.ts';
import type { ServerToolCall, ServerToolList } from '../../canonical/server-tools.ts';
import { mcpCallItem, mcpListToolsItem } from '../shared/encode-mcp-call.ts';
import { encodeResponsesUsage } from './encode-responses-usage.ts';
import {
  FINISHED_WITH_ERROR,
  functionCallItem,
  incompleteDetailsOf,
  itemId,
  itemStatusFor,
  messageItem,
  reasoningItem,
  responsesAnnotationsOf,
  redactedReasoningItem,
  responseIdTail,
  statusOf,
  type ItemStatus,
  type OutputItem,
  type ReasoningItem,
  type ResponseStatus,
} from './responses-output-items.ts';

// Stream parts → Responses API events, as the SSE text to write:
//
//   response.created, response.in_progress
//   per output item: response.output_item.added
//     message:   content_part.added, output_text.delta ×N, output_text.done, content_part.done
//     function:  function_call_arguments.delta ×N, function_call_arguments.done
//     reasoning: reasoning_summary_part.added, reasoning_summary_text.delta ×N,
//                reasoning_summary_text.done, reasoning_summary_part.done
//   response.output_item.done (the whole item)
//   response.completed | response.incomplete | (error, response.failed)
//
// Every event carries a `sequence_number` from 0 and, like OpenAI's, an `event:` line
// (clients dispatch on `data.type`; the line is harmless). Exactly one terminal event ends
// the stream: Codex treats a stream without `response.completed` as a dropped connection.
//
// This is the per-chunk hot path: the response's fixed fields are serialized once, in the
// constructor; each item's routing fields once, when it opens; a delta is a few string
// concatenations and one JSON.stringify of the delta itself.

interface OpenCall {
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  args: string;
  /** `,"item_id":…,"output_index":…` */
  route: string;
}

export class ResponsesStreamEncoder implements DialectStreamEncoder {
  private readonly tail: string;
  private readonly excludeReasoning: boolean;
  /** `{"id":…,"object":"response","created_at":…,"created":…,` */
  private readonly head: string;
  /** `"model":…,"provider":…,` */
  private readonly modelFields: string;
  /** The echoed request fields, without braces. */
  private readonly echo: string;
  private seq = 0;
  private started = false;
  private ended = false;
  private nextIndex = 0;
  /** Finished items by output index; the terminal response lists them all. */
  private readonly output: OutputItem[] = [];
  private finish: FinishReason | null = null;
  private usage: Usage | null = null;

  // The open message item (index -1 when none), and its text so far.
  private messageIndex = -1;
  private messageId = '';
  private messageRoute = '';
  private text = '';

  // The open reasoning item (index -1 when none), and its summary text so far.
  private reasoningIndex = -1;
  private reasoningId = '';
  private reasoningRoute = '';
  private reasoningText = '';

  /** Open function calls by canonical tool-call index, in order of start. */
  private readonly calls = new Map<number, OpenCall>();
  /** MCP calls the gateway runs, by their id → output index, until they end. */
  private readonly mcpCalls = new Map<string, number>();

  constructor(meta: ResponseMeta, req?: CanonicalRequest) {
    this.tail = responseIdTail(meta.id);
    this.excludeReasoning = meta.excludeReasoning;
    this.head = `{"id":${JSON.stringify(`resp_${this.tail}`)},"object":"response","created_at":${meta.created},"created":${meta.created},`;
    this.modelFields = `"model":${JSON.stringify(meta.model)},"provider":${JSON.stringify(meta.provider)},`;
    this.echo = JSON.stringify(echoOf(req)).slice(1, -1);
  }

  start(): string {
    this.started = true;
    return (
      this.lifecycle('response.created', 'in_progress', 'null', 'null', '[]', 'null') +
      this.lifecycle('response.in_progress', 'in_progress', 'null', 'null', '[]', 'null')
    );
  }

  push(part: StreamPart): string {
    if (this.ended) return '';
    switch (part.type) {
      case 'text-delta':
        return part.text.length === 0 ? '' : this.textDelta(part.text);
      case 'reasoning-delta':
        return this.excludeReasoning || part.text.length === 0 ? '' : this.reasoningDelta(part.text);
      case 'reasoning-signature':
        if (this.excludeReasoning) return '';
        if (this.reasoningIndex >= 0) return this.closeReasoning(part.signature);
        // A signature with no reasoning text before it (thinking shown as omitted).
        return (
          this.closeMessage('completed') +
          this.wholeReasoning(reasoningItem(this.newId('rs'), { type: 'reasoning', text: '', signature: part.signature }))
        );
      case 'reasoning-redacted':
        if (this.excludeReasoning) return '';
        return (
          this.closeMessage('completed') +
          this.closeReasoning(undefined) +
          this.wholeReasoning(redactedReasoningItem(this.newId('rs'), part.data))
        );
      case 'tool-call-start':
        return this.callStart(part.index, part.id, part.name);
      case 'tool-call-delta':
        return this.callDelta(part.index, part.argumentsDelta);
      case 'tool-call-end': {
        const call = this.calls.get(part.index);
        if (call === undefined) return '';
        this.calls.delete(part.index);
        return this.closeCall(call, 'completed');
      }
      case 'finish':
        this.finish = part.reason;
        return this.closeOpenItems(itemStatusFor(statusOf(part.reason)));
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'error':
        return this.error(part.error);
      case 'stream-start':
        return '';
      case 'server-tool-list':
        return this.mcpList(part.list);
      case 'server-tool-call':
        return part.call.status === 'in_progress' ? this.mcpCallStart(part.call) : this.mcpCallEnd(part.call);
      // No output item holds generated audio or images: see encode-responses-response.ts.
      case 'audio-delta':
      case 'image-output':
      // Task answers never stream (their routes are not chat dialects).
      case 'task-result':
        return '';
      default:
        return assertNever(part);
    }
  }

  /** The answer is complete: close what is open, then the one terminal event. */
  end(cost?: number): string {
    if (this.ended) return '';
    const status = statusOf(this.finish);
    let out = this.closeOpenItems(itemStatusFor(status));
    this.ended = true;
    if (status === 'failed')
      return out + this.failed(FINISHED_WITH_ERROR.code, FINISHED_WITH_ERROR.message, null, 'provider_error', undefined);
    const usage = JSON.stringify(encodeResponsesUsage(this.usage, cost));
    const incomplete = incompleteDetailsOf(this.finish);
    out += this.lifecycle(
      status === 'completed' ? 'response.completed' : 'response.incomplete',
      status,
      'null',
      incomplete === null ? 'null' : JSON.stringify(incomplete),
      JSON.stringify(this.output),
      usage,
    );
    return out;
  }

  /** A failure after the stream started: the `error` event, then `response.failed`; nothing after. */
  error(err: GatewayError): string {
    if (this.ended) return '';
    const out = this.started ? '' : this.start();
    this.abandonOpenItems();
    this.ended = true;
    return out + this.failed(err.code, err.message, err.param ?? null, err.type, err.metadata);
  }

  private failed(code: string, message: string, param: string | null, type: string, metadata: Record<string, unknown> | undefined): string {
    const nested: Record<string, unknown> = { type, code, message, param };
    if (metadata !== undefined) nested.metadata = metadata;
    // Both shapes: the flat one of the SDK's event type (the AI SDK parses it), and the
    // nested one OpenAI sends (openai-node prefers it).
    const event = this.event(
      'error',
      `,"code":${JSON.stringify(code)},"message":${JSON.stringify(message)},"param":${JSON.stringify(param)},"error":${JSON.stringify(nested)}`,
    );
    this.output.push({ id: this.newId('err'), type: 'error', code, message });
    const usage = this.usage === null ? 'null' : JSON.stringify(encodeResponsesUsage(this.usage, undefined));
    return (
      event + this.lifecycle('response.failed', 'failed', JSON.stringify({ code, message }), 'null', JSON.stringify(this.output), usage)
    );
  }

  private textDelta(delta: string): string {
    let out = '';
    if (this.messageIndex < 0) out = this.closeReasoning(undefined) + this.openMessage();
    this.text += delta;
    return (
      out +
      this.event('response.output_text.delta', `${this.messageRoute},"content_index":0,"delta":${JSON.stringify(delta)},"logprobs":[]`)
    );
  }

  private openMessage(): string {
    const index = this.nextIndex;
    this.messageId = this.newId('msg');
    this.messageIndex = index;
    this.messageRoute = `,"item_id":${JSON.stringify(this.messageId)},"output_index":${index}`;
    this.text = '';
    return (
      this.event(
        'response.output_item.added',
        `,"output_index":${index},"item":{"id":${JSON.stringify(this.messageId)},"type":"message","status":"in_progress","role":"assistant","content":[]}`,
      ) +
      this.event(
        'response.content_part.added',
        `${this.messageRoute},"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`,
      )
    );
  }

  private closeMessage(status: ItemStatus): string {
    if (this.messageIndex < 0) return '';
    const text = JSON.stringify(this.text);
    // A web search the gateway ran: the finish (which closes the message) brings its sources.
    const annotations = responsesAnnotationsOf(this.finish);
    const item = messageItem(this.messageId, status, this.text, annotations);
    this.output[this.messageIndex] = item;
    let added = '';
    annotations.forEach((annotation, i) => {
      added += this.event(
        'response.output_text.annotation.added',
        `${this.messageRoute},"content_index":0,"annotation_index":${i},"annotation":${JSON.stringify(annotation)}`,
      );
    });
    const out =
      added +
      this.event('response.output_text.done', `${this.messageRoute},"content_index":0,"text":${text},"logprobs":[]`) +
      this.event(
        'response.content_part.done',
        `${this.messageRoute},"content_index":0,"part":{"type":"output_text","text":${text},"annotations":${JSON.stringify(annotations)}}`,
      ) +
      this.itemDone(this.messageIndex, item);
    this.messageIndex = -1;
    this.text = '';
    return out;
  }

  private reasoningDelta(delta: string): string {
    let out = '';
    if (this.reasoningIndex < 0) out = this.closeMessage('completed') + this.openReasoning();
    this.reasoningText += delta;
    return (
      out + this.event('response.reasoning_summary_text.delta', `${this.reasoningRoute},"summary_index":0,"delta":${JSON.stringify(delta)}`)
    );
  }

  private openReasoning(): string {
    const index = this.nextIndex;
    this.reasoningId = this.newId('rs');
    this.reasoningIndex = index;
    this.reasoningRoute = `,"item_id":${JSON.stringify(this.reasoningId)},"output_index":${index}`;
    this.reasoningText = '';
    return (
      this.event(
        'response.output_item.added',
        `,"output_index":${index},"item":{"id":${JSON.stringify(this.reasoningId)},"type":"reasoning","summary":[],"encrypted_content":null}`,
      ) +
      this.event(
        'response.reasoning_summary_part.added',
        `${this.reasoningRoute},"summary_index":0,"part":{"type":"summary_text","text":""}`,
      )
    );
  }

  /** Closes the open reasoning item; a signature, when given, becomes its `encrypted_content`. */
  private closeReasoning(signature: string | undefined): string {
    if (this.reasoningIndex < 0) return '';
    const text = JSON.stringify(this.reasoningText);
    const part =
      signature === undefined
        ? { type: 'reasoning' as const, text: this.reasoningText }
        : { type: 'reasoning' as const, text: this.reasoningText, signature };
    const item = reasoningItem(this.reasoningId, part);
    this.output[this.reasoningIndex] = item;
    const out =
      this.event('response.reasoning_summary_text.done', `${this.reasoningRoute},"summary_index":0,"text":${text}`) +
      this.event(
        'response.reasoning_summary_part.done',
        `${this.reasoningRoute},"summary_index":0,"part":{"type":"summary_text","text":${text}}`,
      ) +
      this.itemDone(this.reasoningIndex, item);
    this.reasoningIndex = -1;
    this.reasoningText = '';
    return out;
  }

  /** A reasoning item that arrives whole (redacted, or a bare signature): added, then done. */
  private wholeReasoning(item: ReasoningItem): string {
    const index = this.nextIndex - 1;
    this.output[index] = item;
    return (
      this.event(
        'response.output_item.added',
        `,"output_index":${index},"item":{"id":${JSON.stringify(item.id)},"type":"reasoning","summary":[],"encrypted_content":null}`,
      ) + this.itemDone(index, item)
    );
  }

  private callStart(index: number, callId: string, name: string): string {
    if (this.calls.has(index)) return '';
    const out = this.closeMessage('completed') + this.closeReasoning(undefined);
    const outputIndex = this.nextIndex;
    const id = this.newId('fc');
    const call: OpenCall = {
      outputIndex,
      id,
      callId,
      name,
      args: '',
      route: `,"item_id":${JSON.stringify(id)},"output_index":${outputIndex}`,
    };
    this.calls.set(index, call);
    return (
      out +
      this.event(
        'response.output_item.added',
        `,"output_index":${outputIndex},"item":{"id":${JSON.stringify(id)},"type":"function_call","status":"in_progress","arguments":"","call_id":${JSON.stringify(callId)},"name":${JSON.stringify(name)}}`,
      )
    );
  }

  private callDelta(index: number, delta: string): string {
    const call = this.calls.get(index);
    if (call === undefined || delta.length === 0) return '';
    call.args += delta;
    return this.event('response.function_call_arguments.delta', `${call.route},"delta":${JSON.stringify(delta)}`);
  }

  private closeCall(call: OpenCall, status: ItemStatus): string {
    const item = functionCallItem(call.id, status, { type: 'tool-call', id: call.callId, name: call.name, arguments: call.args });
    this.output[call.outputIndex] = item;
    return (
      this.event(
        'response.function_call_arguments.done',
        `${call.route},"arguments":${JSON.stringify(call.args)},"name":${JSON.stringify(call.name)}`,
      ) + this.itemDone(call.outputIndex, item)
    );
  }

  /** An MCP server's tool list: added and done at once (OpenAI's `mcp_list_tools` events between). */
  private mcpList(list: ServerToolList): string {
    const out = this.closeMessage('completed') + this.closeReasoning(undefined);
    const index = this.nextIndex;
    const item = { ...mcpListToolsItem(list), id: this.newId('mcpl') };
    this.output[index] = item;
    const route = `,"item_id":${JSON.stringify(item.id)},"output_index":${index}`;
    return (
      out +
      this.event('response.output_item.added', `,"output_index":${index},"item":${JSON.stringify({ ...item, tools: [] })}`) +
      this.event('response.mcp_list_tools.in_progress', route) +
      this.event('response.mcp_list_tools.completed', route) +
      this.itemDone(index, item)
    );
  }

  /** An MCP call the gateway starts: its item, in progress, with its arguments whole. */
  private mcpCallStart(call: ServerToolCall): string {
    const out = this.closeMessage('completed') + this.closeReasoning(undefined);
    const index = this.nextIndex;
    const item = { ...mcpCallItem(call), id: this.newId('mcp') };
    this.mcpCalls.set(call.id, index);
    this.output[index] = item;
    const route = `,"item_id":${JSON.stringify(item.id)},"output_index":${index}`;
    return (
      out +
      this.event('response.output_item.added', `,"output_index":${index},"item":${JSON.stringify({ ...item, arguments: '' })}`) +
      this.event('response.mcp_call.in_progress', route) +
      this.event('response.mcp_call_arguments.delta', `${route},"delta":${JSON.stringify(call.arguments)}`) +
      this.event('response.mcp_call_arguments.done', `${route},"arguments":${JSON.stringify(call.arguments)}`)
    );
  }

  /** The MCP call ended: completed or failed, then its item whole. */
  private mcpCallEnd(call: ServerToolCall): string {
    const index = this.mcpCalls.get(call.id);
    if (index === undefined) return '';
    this.mcpCalls.delete(call.id);
    const item = { ...mcpCallItem(call), id: (this.output[index] as { id: string }).id };
    this.output[index] = item;
    const route = `,"item_id":${JSON.stringify(item.id)},"output_index":${index}`;
    return (
      this.event(call.status === 'completed' ? 'response.mcp_call.completed' : 'response.mcp_call.failed', route) +
      this.itemDone(index, item)
    );
  }

  private closeOpenItems(status: ItemStatus): string {
    let out = '';
    for (const call of this.calls.values()) out += this.closeCall(call, status);
    this.calls.clear();
    return out + this.closeReasoning(undefined) + this.closeMessage(status);
  }

  /** A failed stream sends no more item events; what was open goes into the failed response as is. */
  private abandonOpenItems(): void {
    for (const call of this.calls.values()) {
      this.output[call.outputIndex] = functionCallItem(call.id, 'incomplete', {
        type: 'tool-call',
        id: call.callId,
        name: call.name,
        arguments: call.args,
      });
    }
    this.calls.clear();
    if (this.reasoningIndex >= 0) {
      this.output[this.reasoningIndex] = reasoningItem(this.reasoningId, { type: 'reasoning', text: this.reasoningText });
      this.reasoningIndex = -1;
    }
    if (this.messageIndex >= 0) {
      this.output[this.messageIndex] = messageItem(this.messageId, 'incomplete', this.text);
      this.messageIndex = -1;
    }
  }

  private itemDone(index: number, item: OutputItem): string {
    return this.event('response.output_item.done', `,"output_index":${index},"item":${JSON.stringify(item)}`);
  }

  /** The id of the next output item; takes its output index. */
  private newId(prefix: string): string {
    return itemId(prefix, this.tail, this.nextIndex++);
  }

  private lifecycle(
    type: string,
    status: ResponseStatus | 'in_progress',
    error: string,
    incomplete: string,
    output: string,
    usage: string,
  ): string {
    return this.event(
      type,
      `,"response":${this.head}"status":"${status}","error":${error},"incomplete_details":${incomplete},${this.modelFields}"output":${output},${this.echo},"usage":${usage}}`,
    );
  }

  /** One SSE event: `body` is the payload's fields after `type` and `sequence_number`, with a leading comma. */
  private event(type: string, body: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.seq++}${body}}\n\n`;
  }
}
