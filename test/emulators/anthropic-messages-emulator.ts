// An upstream that speaks the Anthropic Messages wire format (reference/wire-formats.md §0,
// §2) over real HTTP on loopback, beside openai-chat-emulator.ts and with the same API. It
// records what it received, rejects what the real API rejects (anthropic-emulator-rejection.ts),
// and plays scripted answers and faults in order; with nothing scripted it answers
// deterministically from the request.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { rejection } from './anthropic-emulator-rejection.ts';
import { echoedHeaders, EmulatorHttp, type EmulatorFault, type UpstreamEmulator } from './emulator-http.ts';
import { splitText } from './split-text.ts';
import { parseVertexPath, vertexTokenRefusal, type VertexTestCredentials } from './vertex-route.ts';

export type { RecordedRequest } from './emulator-http.ts';

/** A tool call; `arguments` is the JSON text, streamed as `input_json_delta` fragments. */
export interface EmulatorToolCall {
  id?: string;
  name: string;
  arguments: string;
}

export interface EmulatorUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Sent as `output_tokens_details.thinking_tokens`. */
  thinking_tokens?: number;
}

export type EmulatorBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id?: string; name: string; arguments: string };

export interface AnswerStep {
  fault?: undefined;
  /** Shorthand blocks, in this order: thinking, redacted thinking, text, tool calls. */
  thinking?: string;
  /** The thinking block's signature (default: derived from the thinking text). */
  signature?: string;
  redacted?: string;
  text?: string;
  toolCalls?: EmulatorToolCall[];
  /** The content blocks in order, instead of the shorthand fields. */
  blocks?: EmulatorBlock[];
  /** Defaults to `tool_use` when there are tool calls, else `end_turn`. */
  stopReason?: string;
  stopSequence?: string;
  usage?: EmulatorUsage;
  /** How many pieces text and thinking are split into when streaming (default: one per word). */
  chunks?: number;
  /** Pause between streamed events. */
  chunkDelayMs?: number;
  /** End the stream after `message_delta`, without `message_stop`. */
  omitMessageStop?: boolean;
}

export interface EmulatorError {
  type: string;
  message: string;
}

/**
 * The emulators' faults; here a `status` answer's body defaults to Anthropic's envelope for
 * the status (529 → overloaded_error), `malformed-json` streams a broken data line after
 * `message_start`, and `stream-error` is an `event: error` (a 200 holding the envelope when
 * not streaming).
 */
export type FaultStep = EmulatorFault<AnswerStep, EmulatorError>;

export type EmulatorStep = AnswerStep | FaultStep;

export interface AnthropicEmulatorOptions {
  /** Keep every request in `requests` (default true). */
  record?: boolean;
  /** Answer requests the real API rejects with its 400/401 (default true). */
  validate?: boolean;
  /**
   * Requests under Vertex AI's paths (`/v1/projects/…/publishers/anthropic/models/{m}:rawPredict`
   * or `:streamRawPredict`) must carry a bearer token these credentials signed (else 401), and a
   * body with `anthropic_version: "vertex-2023-10-16"` and no `model` (the path names it).
   */
  vertexCredentials?: VertexTestCredentials;
}

/** `baseUrl` is `http://127.0.0.1:<port>`: the adapter and the SDK append `/v1/messages`. */
export type AnthropicEmulator = UpstreamEmulator<EmulatorStep>;

const ERROR_TYPES: Readonly<Record<number, EmulatorError>> = {
  400: { type: 'invalid_request_error', message: 'Invalid request.' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  402: { type: 'billing_error', message: 'Your credit balance is too low.' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'Not found.' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
  500: { type: 'api_error', message: 'Internal server error' },
  504: { type: 'timeout_error', message: 'Request timed out.' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};
const OVERLOADED: EmulatorError = ERROR_TYPES[529]!;

interface Exchange {
  model: string;
  stream: boolean;
  inputTokens: number;
  headers: IncomingHttpHeaders;
}

export async function startAnthropicEmulator(options: AnthropicEmulatorOptions = {}): Promise<AnthropicEmulator> {
  const emulator = new Emulator(options.record ?? true, options.validate ?? true, options.vertexCredentials);
  await emulator.listen();
  return emulator;
}

class Emulator extends EmulatorHttp<EmulatorStep> implements AnthropicEmulator {
  private readonly validate: boolean;
  private readonly vertexCredentials: VertexTestCredentials | undefined;
  private counter = 0;

  constructor(record: boolean, validate: boolean, vertexCredentials: VertexTestCredentials | undefined) {
    super({ record });
    this.validate = validate;
    this.vertexCredentials = vertexCredentials;
  }

  get baseUrl(): string {
    return this.origin;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string, body: any): void {
    this.record({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const path = (req.url ?? '').split('?')[0];
    const vertex = parseVertexPath(req.url ?? '');
    const onVertex =
      vertex !== null && vertex.publisher === 'anthropic' && (vertex.method === 'rawPredict' || vertex.method === 'streamRawPredict');
    if (req.method !== 'POST' || (path !== '/v1/messages' && !onVertex)) {
      this.sendError(res, 404, { type: 'not_found_error', message: `Not found: ${req.method} ${req.url}` });
      return;
    }
    let headers = req.headers;
    if (onVertex) {
      const refused = vertexTokenRefusal(req.headers, this.vertexCredentials);
      if (refused !== null) {
        this.sendJson(res, 401, refused);
        return;
      }
      const envelope = vertexEnvelopeRefusal(body);
      if (envelope !== null) {
        this.sendError(res, 400, { type: 'invalid_request_error', message: envelope });
        return;
      }
      // Past Vertex's envelope, the Messages API as at Anthropic: the path names the model.
      body = { ...body, model: vertex.model };
      headers = { ...req.headers, 'anthropic-version': body.anthropic_version };
    }
    if (this.validate) {
      const rejected = rejection(headers, body);
      if (rejected !== null) {
        this.sendError(res, rejected.status, {
          type: rejected.status === 401 ? 'authentication_error' : 'invalid_request_error',
          message: rejected.message,
        });
        return;
      }
    }
    const exchange: Exchange = {
      model: typeof body?.model === 'string' ? body.model : 'unknown',
      stream: body?.stream === true,
      inputTokens: Math.max(1, Math.ceil(text.length / 4)),
      headers: req.headers,
    };
    this.play(this.nextStep(), exchange, res);
  }

  private play(step: EmulatorStep | undefined, ex: Exchange, res: ServerResponse): void {
    if (step === undefined) {
      this.respond({ text: `Hello from ${ex.model}` }, ex, res);
      return;
    }
    if (step.fault === undefined) {
      this.respond(step, ex, res);
      return;
    }
    switch (step.fault) {
      case 'status':
        if (step.body === undefined) this.sendError(res, step.status, ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!, step.headers);
        else this.sendBody(res, step.status, step.body, step.headers);
        return;
      case 'rate-limit':
        this.sendError(res, 429, ERROR_TYPES[429]!, {
          'retry-after': String(step.retryAfterSeconds),
          'anthropic-ratelimit-requests-remaining': '0',
        });
        return;
      case 'slow-first-byte':
        this.later(res, step.delayMs, () => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res));
        return;
      case 'reset-mid-stream': {
        const answer = step.then ?? { text: `Hello from ${ex.model}`, chunks: step.afterChunks + 3 };
        if (ex.stream) this.cutEvents(res, this.streamEvents(answer, ex).slice(0, step.afterChunks));
        else this.cutBody(res, JSON.stringify(this.message(answer, ex)));
        return;
      }
      case 'malformed-json':
        if (ex.stream)
          this.sendEvents(res, 200, [this.streamEvents({ text: '' }, ex)[0]!, 'event: content_block_start\ndata: {not json\n\n']);
        else this.sendBody(res, 200, '{"id":"msg_broken","type":"message","role":"assistant","content":[');
        return;
      case 'stream-error': {
        const envelope = { type: 'error', error: step.error ?? OVERLOADED };
        if (!ex.stream) {
          this.sendJson(res, 200, envelope);
          return;
        }
        const events = this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 1);
        this.sendEvents(res, 200, [...events, sse('error', envelope)]);
        return;
      }
      case 'hang':
        return;
      case 'stall-after-headers':
        this.stallAfterHeaders(
          res,
          ex.stream,
          ex.stream ? this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 0) : [],
        );
        return;
      case 'echo-headers': {
        const type = (ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!).type;
        const envelope = { type: 'error', error: { type, message: echoedHeaders(ex.headers), received_headers: ex.headers } };
        if (step.status !== 200) this.sendBody(res, step.status, envelope);
        else if (!ex.stream) this.sendJson(res, 200, envelope);
        else this.sendEvents(res, 200, [...this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, 3), sse('error', envelope)]);
        return;
      }
      case 'oversized-event':
        this.sendOversizedEvent(res, this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 0), step.chars);
        return;
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private respond(step: AnswerStep, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream) {
      this.sendJson(res, 200, this.message(step, ex));
      return;
    }
    const events = this.streamEvents(step, ex);
    if (step.omitMessageStop === true) events.pop();
    this.sendEvents(res, 200, events, step.chunkDelayMs);
  }

  private sendError(res: ServerResponse, status: number, error: EmulatorError, headers?: Record<string, string>): void {
    const id = `req_emu_${++this.counter}`;
    this.sendJson(res, status, { type: 'error', error, request_id: id }, { 'request-id': id, ...headers });
  }

  /** The non-streamed `Message`, shaped like the reference's recorded example. */
  private message(step: AnswerStep, ex: Exchange): Record<string, unknown> {
    const id = `msg_emu_${++this.counter}`;
    const content = blocksOf(step, this.counter).map((b) => {
      switch (b.type) {
        case 'tool_use':
          return { type: 'tool_use', id: b.id, name: b.name, input: b.arguments.length === 0 ? {} : JSON.parse(b.arguments) };
        default:
          return b;
      }
    });
    const usage = usageOf(step, ex);
    return {
      id,
      type: 'message',
      role: 'assistant',
      model: ex.model,
      content,
      stop_reason: stopReasonOf(step),
      stop_sequence: step.stopSequence ?? null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
        output_tokens: usage.output_tokens,
        service_tier: 'standard',
        ...(usage.output_tokens_details === undefined ? {} : { output_tokens_details: usage.output_tokens_details }),
      },
    };
  }

  /** Every SSE event of a streamed answer, in the documented order, `message_stop` last. */
  private streamEvents(step: AnswerStep, ex: Exchange): string[] {
    const id = `msg_emu_${++this.counter}`;
    const usage = usageOf(step, ex);
    const events = [
      sse('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          content: [],
          model: ex.model,
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            output_tokens: 1,
          },
        },
      }),
    ];
    const blocks = blocksOf(step, this.counter);
    if (blocks.length === 0) events.push(PING);
    blocks.forEach((block, index) => {
      const start = (contentBlock: Record<string, unknown>): void => {
        events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: contentBlock }));
        // Where the reference's recording has its ping: right after the first block's start.
        if (index === 0) events.push(PING);
      };
      const delta = (d: Record<string, unknown>): void => {
        events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: d }));
      };
      switch (block.type) {
        case 'text':
          start({ type: 'text', text: '' });
          for (const piece of splitText(block.text, step.chunks)) delta({ type: 'text_delta', text: piece });
          break;
        case 'thinking':
          start({ type: 'thinking', thinking: '', signature: '' });
          for (const piece of splitText(block.thinking, step.chunks)) delta({ type: 'thinking_delta', thinking: piece });
          delta({ type: 'signature_delta', signature: block.signature });
          break;
        case 'redacted_thinking':
          start({ type: 'redacted_thinking', data: block.data });
          break;
        case 'tool_use':
          start({ type: 'tool_use', id: block.id, name: block.name, input: {} });
          // Real streams open with an empty fragment.
          delta({ type: 'input_json_delta', partial_json: '' });
          for (const piece of splitText(block.arguments, Math.min(3, block.arguments.length)))
            delta({ type: 'input_json_delta', partial_json: piece });
          break;
        default:
          throw new Error(`unknown emulator block: ${JSON.stringify(block satisfies never)}`);
      }
      events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    });
    events.push(
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(step), stop_sequence: step.stopSequence ?? null },
        // Cumulative, restating the input side as newer API versions do.
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens: usage.output_tokens,
          ...(usage.output_tokens_details === undefined ? {} : { output_tokens_details: usage.output_tokens_details }),
        },
      }),
    );
    events.push(sse('message_stop', { type: 'message_stop' }));
    return events;
  }
}

/** Vertex's Claude takes the version in the body, and refuses a `model` there. */
function vertexEnvelopeRefusal(body: any): string | null {
  if (typeof body !== 'object' || body === null) return 'There was an error parsing the body of your request.';
  if (body.anthropic_version !== 'vertex-2023-10-16') return "anthropic_version: Input should be 'vertex-2023-10-16'";
  if ('model' in body) return 'model: Extra inputs are not permitted';
  return null;
}

const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The step's content blocks, tool ids filled in. */
function blocksOf(
  step: AnswerStep,
  counter: number,
): Array<Exclude<EmulatorBlock, { type: 'tool_use' }> | { type: 'tool_use'; id: string; name: string; arguments: string }> {
  const blocks: EmulatorBlock[] = step.blocks !== undefined ? [...step.blocks] : [];
  if (step.blocks === undefined) {
    if (step.thinking !== undefined)
      blocks.push({ type: 'thinking', thinking: step.thinking, signature: step.signature ?? signatureFor(step.thinking) });
    if (step.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: step.redacted });
    if (step.text !== undefined && step.text.length > 0) blocks.push({ type: 'text', text: step.text });
    for (const call of step.toolCalls ?? []) blocks.push({ type: 'tool_use', ...call });
  }
  let tool = 0;
  return blocks.map((b) => (b.type === 'tool_use' ? { ...b, id: b.id ?? `toolu_emu_${counter}_${tool++}` } : b));
}

/** Deterministic, and shaped like the real (base64) signatures. */
function signatureFor(thinking: string): string {
  return `EqQB${Buffer.from(`sig:${thinking}`).toString('base64')}`;
}

function stopReasonOf(step: AnswerStep): string {
  if (step.stopReason !== undefined) return step.stopReason;
  const hasTools = (step.toolCalls?.length ?? 0) > 0 || (step.blocks?.some((b) => b.type === 'tool_use') ?? false);
  return hasTools ? 'tool_use' : 'end_turn';
}

function usageOf(step: AnswerStep, ex: Exchange) {
  const u = step.usage;
  return {
    input_tokens: u?.input_tokens ?? ex.inputTokens,
    cache_creation_input_tokens: u?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u?.cache_read_input_tokens ?? 0,
    output_tokens: u?.output_tokens ?? estimateOutputTokens(step),
    output_tokens_details: u?.thinking_tokens === undefined ? undefined : { thinking_tokens: u.thinking_tokens },
  };
}

function estimateOutputTokens(step: AnswerStep): number {
  let chars = (step.text?.length ?? 0) + (step.thinking?.length ?? 0);
  for (const call of step.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  return Math.max(1, Math.ceil(chars / 4));
}
