// An upstream that speaks the Anthropic Messages wire format (reference/wire-formats.md §0,
// §2) over real HTTP on loopback, beside openai-chat-emulator.ts and with the same API. It
// records what it received, rejects what the real API rejects (see `rejection` below), and
// plays scripted answers and faults in order; with nothing scripted it answers
// deterministically from the request.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse); `any` so tests can walk it. */
  body: any;
}

/** A tool call; `arguments` is the JSON text, streamed as `input_json_delta` fragments. */
export interface EmulatorToolCall { id?: string; name: string; arguments: string }

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

export interface EmulatorError { type: string; message: string }

export type FaultStep =
  /** An error answer; the body defaults to Anthropic's envelope for the status (529 → overloaded_error). */
  | { fault: 'status'; status: number; body?: string | Record<string, unknown>; headers?: Record<string, string> }
  | { fault: 'rate-limit'; retryAfterSeconds: number }
  | { fault: 'slow-first-byte'; delayMs: number; then?: AnswerStep }
  /** Destroys the socket after `afterChunks` SSE events (non-stream: after part of the body). */
  | { fault: 'reset-mid-stream'; afterChunks: number; then?: AnswerStep }
  /** Non-stream: a 200 whose body is not JSON. Stream: a broken data line after `message_start`. */
  | { fault: 'malformed-json' }
  /** Stream: `event: error` after `afterChunks` events (default 1). Non-stream: a 200 holding the error envelope. */
  | { fault: 'stream-error'; afterChunks?: number; error?: EmulatorError }
  /** Never answers (for timeouts). */
  | { fault: 'hang' };

export type EmulatorStep = AnswerStep | FaultStep;

export interface AnthropicEmulatorOptions {
  /** Keep every request in `requests` (default true). */
  record?: boolean;
  /** Answer requests the real API rejects with its 400/401 (default true). */
  validate?: boolean;
}

export interface AnthropicEmulator {
  /** `http://127.0.0.1:<port>`: the adapter and the SDK append `/v1/messages`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Responses the client walked away from before they were complete (deliberate resets excluded). */
  readonly closedEarly: number;
  enqueue(...steps: EmulatorStep[]): void;
  /** Forget recorded requests, scripted steps and the closedEarly count. */
  reset(): void;
  close(): Promise<void>;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;
const JSON_TYPE = 'application/json';
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
}

export async function startAnthropicEmulator(options: AnthropicEmulatorOptions = {}): Promise<AnthropicEmulator> {
  const emulator = new Emulator(options.record ?? true, options.validate ?? true);
  await emulator.listen();
  return emulator;
}

class Emulator implements AnthropicEmulator {
  baseUrl = '';
  readonly requests: RecordedRequest[] = [];
  closedEarly = 0;
  private readonly record: boolean;
  private readonly validate: boolean;
  private readonly steps: EmulatorStep[] = [];
  private readonly server: Server;
  private counter = 0;
  private readonly resets = new WeakSet<ServerResponse>();

  constructor(record: boolean, validate: boolean) {
    this.record = record;
    this.validate = validate;
    this.server = createServer((req, res) => this.onRequest(req, res));
    this.server.keepAliveTimeout = 60_000;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
        resolve();
      });
    });
  }

  enqueue(...steps: EmulatorStep[]): void {
    this.steps.push(...steps);
  }

  reset(): void {
    this.requests.length = 0;
    this.steps.length = 0;
    this.closedEarly = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.on('close', () => {
      if (!res.writableFinished && !this.resets.has(res)) this.closedEarly++;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
  }

  private answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (this.record) this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') {
      this.sendError(res, 404, { type: 'not_found_error', message: `Not found: ${req.method} ${req.url}` });
      return;
    }
    if (this.validate) {
      const rejected = rejection(req.headers, body);
      if (rejected !== null) {
        this.sendError(res, rejected.status, { type: rejected.status === 401 ? 'authentication_error' : 'invalid_request_error', message: rejected.message });
        return;
      }
    }
    const exchange: Exchange = {
      model: typeof body?.model === 'string' ? body.model : 'unknown',
      stream: body?.stream === true,
      inputTokens: Math.max(1, Math.ceil(text.length / 4)),
    };
    this.play(this.steps.shift(), exchange, res);
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
      case 'status': {
        if (step.body === undefined) {
          this.sendError(res, step.status, ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!, step.headers);
          return;
        }
        res.writeHead(step.status, { 'content-type': JSON_TYPE, ...step.headers });
        res.end(typeof step.body === 'string' ? step.body : JSON.stringify(step.body));
        return;
      }
      case 'rate-limit':
        this.sendError(res, 429, ERROR_TYPES[429]!, { 'retry-after': String(step.retryAfterSeconds), 'anthropic-ratelimit-requests-remaining': '0' });
        return;
      case 'slow-first-byte': {
        const timer = setTimeout(() => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res), step.delayMs);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'reset-mid-stream':
        this.resetMidStream(step.then ?? { text: `Hello from ${ex.model}`, chunks: step.afterChunks + 3 }, step.afterChunks, ex, res);
        return;
      case 'malformed-json':
        res.writeHead(200, ex.stream ? SSE_HEADERS : { 'content-type': JSON_TYPE });
        if (ex.stream) res.end(this.streamEvents({ text: '' }, ex)[0]! + 'event: content_block_start\ndata: {not json\n\n');
        else res.end('{"id":"msg_broken","type":"message","role":"assistant","content":[');
        return;
      case 'stream-error': {
        const envelope = { type: 'error', error: step.error ?? OVERLOADED };
        if (!ex.stream) {
          sendJson(res, 200, envelope);
          return;
        }
        const events = this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 1);
        res.writeHead(200, SSE_HEADERS);
        res.end(events.join('') + sse('error', envelope));
        return;
      }
      case 'hang':
        return;
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private respond(step: AnswerStep, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream) {
      sendJson(res, 200, this.message(step, ex));
      return;
    }
    const events = this.streamEvents(step, ex);
    if (step.omitMessageStop === true) events.pop();
    res.writeHead(200, SSE_HEADERS);
    const delay = step.chunkDelayMs ?? 0;
    if (delay <= 0) res.end(events.join(''));
    else writePaced(res, events, delay);
  }

  private resetMidStream(step: AnswerStep, afterChunks: number, ex: Exchange, res: ServerResponse): void {
    const cut = (): void => {
      this.resets.add(res);
      res.destroy();
    };
    if (!ex.stream) {
      const body = JSON.stringify(this.message(step, ex));
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, body.length >> 1), cut);
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.write(this.streamEvents(step, ex).slice(0, afterChunks).join(''), cut);
  }

  private sendError(res: ServerResponse, status: number, error: EmulatorError, headers: Record<string, string> = {}): void {
    const body = JSON.stringify({ type: 'error', error, request_id: `req_emu_${++this.counter}` });
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), 'request-id': `req_emu_${this.counter}`, ...headers });
    res.end(body);
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
    const events = [sse('message_start', {
      type: 'message_start',
      message: {
        id, type: 'message', role: 'assistant', content: [], model: ex.model, stop_reason: null, stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens, cache_read_input_tokens: usage.cache_read_input_tokens, output_tokens: 1 },
      },
    })];
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
          for (const piece of splitText(block.arguments, Math.min(3, block.arguments.length))) delta({ type: 'input_json_delta', partial_json: piece });
          break;
        default:
          throw new Error(`unknown emulator block: ${JSON.stringify(block satisfies never)}`);
      }
      events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
    });
    events.push(sse('message_delta', {
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
    }));
    events.push(sse('message_stop', { type: 'message_stop' }));
    return events;
  }
}

const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function writePaced(res: ServerResponse, events: string[], delayMs: number): void {
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  const next = (): void => {
    if (res.destroyed) return;
    res.write(events[i++]!);
    if (i === events.length) res.end();
    else timer = setTimeout(next, delayMs);
  };
  res.on('close', () => clearTimeout(timer));
  next();
}

/** The step's content blocks, tool ids filled in. */
function blocksOf(step: AnswerStep, counter: number): Array<Exclude<EmulatorBlock, { type: 'tool_use' }> | { type: 'tool_use'; id: string; name: string; arguments: string }> {
  const blocks: EmulatorBlock[] = step.blocks !== undefined ? [...step.blocks] : [];
  if (step.blocks === undefined) {
    if (step.thinking !== undefined) blocks.push({ type: 'thinking', thinking: step.thinking, signature: step.signature ?? signatureFor(step.thinking) });
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

/** `pieces` near-equal slices, or by default one per word (trailing space kept). */
function splitText(text: string, pieces: number | undefined): string[] {
  if (text.length === 0) return [];
  if (pieces === undefined) return text.split(/(?<= )/);
  const n = Math.max(1, Math.min(pieces, text.length));
  const out: string[] = [];
  let start = 0;
  for (let k = 1; k <= n; k++) {
    let end = Math.round((text.length * k) / n);
    const code = text.charCodeAt(end);
    if (end < text.length && code >= 0xdc00 && code <= 0xdfff) end++;
    if (end > start) out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

// ---- what the real API rejects (its messages, abridged) ----

const MAX_CACHE_CONTROL_BLOCKS = 4;

/** The 400/401 the real API would answer this request with, or null. */
function rejection(headers: IncomingHttpHeaders, body: any): { status: number; message: string } | null {
  if (headers['x-api-key'] === undefined && headers.authorization === undefined) return { status: 401, message: 'x-api-key header is required' };
  const bad = (message: string) => ({ status: 400, message });
  if (headers['anthropic-version'] === undefined) return bad('anthropic-version: header is required');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('There was an error parsing the body of your request.');
  if (typeof body.model !== 'string') return bad('model: Field required');
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return bad('max_tokens: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('messages: at least one message is required');
  if (typeof body.temperature === 'number' && (body.temperature < 0 || body.temperature > 1)) return bad('temperature: Input should be less than or equal to 1');
  if (body.tool_choice !== undefined && !Array.isArray(body.tools)) return bad('tool_choice: tool_choice may only be specified while providing tools');

  let cacheBlocks = 0;
  const countCache = (block: any): void => {
    if (block?.cache_control !== undefined) cacheBlocks++;
  };
  if (Array.isArray(body.system)) body.system.forEach(countCache);
  if (Array.isArray(body.tools)) body.tools.forEach(countCache);

  let previousToolUses: string[] = [];
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (m?.role !== 'user' && m?.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(content) || (content.length === 0 && i < body.messages.length - 1)) {
      return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const results = content.filter((b: any) => b?.type === 'tool_result').map((b: any) => b.tool_use_id);
    for (const id of results) {
      if (!previousToolUses.includes(id)) return bad(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
    }
    for (const id of previousToolUses) {
      if (!results.includes(id)) return bad(`messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}`);
    }
    previousToolUses = [];
    let sawOther = false;
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      countCache(b);
      if (b?.type === 'text' && (typeof b.text !== 'string' || b.text.length === 0)) return bad('messages: text content blocks must be non-empty');
      if (b?.type === 'thinking' && typeof b.signature !== 'string') return bad(`messages.${i}.content.${j}.thinking.signature: Field required`);
      if (b?.type === 'tool_use') {
        if (!Array.isArray(body.tools)) return bad('Requests which include `tool_use` or `tool_result` blocks must define tools.');
        if (m.role !== 'assistant') return bad(`messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`);
        if (!/^[a-zA-Z0-9_-]+$/.test(String(b.id))) return bad(`messages.${i}.content.${j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        previousToolUses.push(b.id);
      }
      if (b?.type !== 'tool_result') sawOther = true;
      else if (sawOther) return bad(`messages.${i}.content.${j}: tool_result blocks must come before any other content`);
    }
  }
  if (cacheBlocks > MAX_CACHE_CONTROL_BLOCKS) return bad(`A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${cacheBlocks}.`);

  const thinking = body.thinking;
  if (thinking?.type === 'enabled') {
    if (!Number.isInteger(thinking.budget_tokens) || thinking.budget_tokens < 1024) return bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    const interleaved = String(headers['anthropic-beta'] ?? '').split(',').includes('interleaved-thinking-2025-05-14');
    if (!interleaved && thinking.budget_tokens >= body.max_tokens) return bad('`max_tokens` must be greater than `thinking.budget_tokens`.');
    if (body.temperature !== undefined && body.temperature !== 1) return bad('`temperature` may only be set to 1 when thinking is enabled.');
    if (body.top_k !== undefined) return bad('`top_k` is not supported when thinking is enabled.');
    if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool') return bad('Thinking may not be enabled when tool_choice forces tool use.');
    const lastAssistant = [...body.messages].reverse().find((m: any) => m.role === 'assistant');
    const blocks = Array.isArray(lastAssistant?.content) ? lastAssistant.content : [];
    if (blocks.some((b: any) => b?.type === 'tool_use') && blocks[0]?.type !== 'thinking' && blocks[0]?.type !== 'redacted_thinking') {
      return bad(`Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`);
    }
  }
  return null;
}
