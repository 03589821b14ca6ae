// An upstream that speaks the OpenAI chat-completions wire format (reference/wire-formats.md
// §0, §1) over real HTTP on loopback. It records what it received and plays scripted answers
// and faults, in order; with nothing scripted it answers deterministically from the request.
// Benchmarks use it too, so the default path stays cheap: one JSON.parse of the request, a
// few small JSON.stringify calls, one write.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse); `any` so tests can walk it. */
  body: any;
  /** Arrival order across every emulator of this process: tells which of several upstreams was asked first. */
  seq: number;
}

export interface EmulatorToolCall { id?: string; name: string; arguments: string }

export interface EmulatorUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
}

export interface AnswerStep {
  fault?: undefined;
  text?: string;
  reasoning?: string;
  /** Where reasoning goes: `reasoning_content` (DeepSeek, vLLM) by default, or `reasoning` (OpenRouter). */
  reasoningField?: 'reasoning' | 'reasoning_content';
  toolCalls?: EmulatorToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`; null sends no finish reason. */
  finishReason?: string | null;
  usage?: EmulatorUsage;
  /** How many pieces the text is split into when streaming (default: one per word). */
  chunks?: number;
  /** Pause between streamed events. */
  chunkDelayMs?: number;
  /** HTTP status of the answer (default 200). */
  status?: number;
  /** End the stream without `data: [DONE]`. */
  omitDone?: boolean;
}

export type FaultStep =
  | { fault: 'status'; status: number; body?: string | Record<string, unknown>; headers?: Record<string, string> }
  | { fault: 'rate-limit'; retryAfterSeconds: number }
  | { fault: 'slow-first-byte'; delayMs: number; then?: AnswerStep }
  /** Destroys the socket after `afterChunks` SSE events (non-stream: after part of the body). */
  | { fault: 'reset-mid-stream'; afterChunks: number; then?: AnswerStep }
  /** Non-stream: a 200 whose body is not JSON. Stream: a `data: {not json` line after the role chunk. */
  | { fault: 'malformed-json' }
  /** Stream: `data: {"error":{...}}` after `afterChunks` events. Non-stream: a 200 holding the error object. */
  | { fault: 'stream-error'; afterChunks?: number; error?: Record<string, unknown> }
  /** Never answers (for timeouts). */
  | { fault: 'hang' };

export type EmulatorStep = AnswerStep | FaultStep;

export interface OpenAIChatEmulatorOptions {
  /** Keep every request in `requests` (default true; benchmarks turn it off). */
  record?: boolean;
}

export interface OpenAIChatEmulator {
  /** `http://127.0.0.1:<port>/v1` */
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
const DONE = 'data: [DONE]\n\n';
const ID_SLOT = '@@EMULATOR_ID@@';
/** Requests received by any emulator so far (`RecordedRequest.seq`). */
let arrivals = 0;
const DEFAULT_ERROR = { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null };

interface Exchange {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  promptTokens: number;
}

export async function startOpenAIChatEmulator(options: OpenAIChatEmulatorOptions = {}): Promise<OpenAIChatEmulator> {
  const emulator = new Emulator(options.record ?? true);
  await emulator.listen();
  return emulator;
}

class Emulator implements OpenAIChatEmulator {
  baseUrl = '';
  readonly requests: RecordedRequest[] = [];
  closedEarly = 0;
  private readonly record: boolean;
  private readonly steps: EmulatorStep[] = [];
  private readonly server: Server;
  private readonly created = Math.floor(Date.now() / 1000);
  private counter = 0;
  /** Responses this emulator cut on purpose, so they do not count as closed early. */
  private readonly resets = new WeakSet<ServerResponse>();
  /** Rendered default answers, split around the response id. */
  private readonly defaults = new Map<string, string[]>();

  constructor(record: boolean) {
    this.record = record;
    this.server = createServer((req, res) => this.onRequest(req, res));
    // Clients (and benchmarks) reuse connections; do not close them under their feet.
    this.server.keepAliveTimeout = 60_000;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
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
      // Hung and kept-alive connections would hold close() open forever.
      this.server.closeAllConnections();
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.on('close', () => {
      if (!res.writableFinished && !this.resets.has(res)) this.closedEarly++;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => this.answer(req, res, chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
  }

  private answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (this.record) this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, seq: ++arrivals });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendJson(res, 404, { error: { message: `Unknown route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
      return;
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) {
      sendJson(res, 400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    const exchange: Exchange = {
      model: typeof body.model === 'string' ? body.model : 'unknown',
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
      // Cheap and deterministic: about four characters per token.
      promptTokens: Math.max(1, Math.ceil(text.length / 4)),
    };
    this.play(this.steps.shift(), exchange, res);
  }

  private play(step: EmulatorStep | undefined, ex: Exchange, res: ServerResponse): void {
    if (step === undefined) {
      this.respondDefault(ex, res);
      return;
    }
    if (step.fault === undefined) {
      this.respond(step, ex, res);
      return;
    }
    switch (step.fault) {
      case 'status': {
        const payload = step.body === undefined ? JSON.stringify({ error: DEFAULT_ERROR }) : typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
        res.writeHead(step.status, { 'content-type': JSON_TYPE, ...step.headers });
        res.end(payload);
        return;
      }
      case 'rate-limit':
        res.writeHead(429, { 'content-type': JSON_TYPE, 'retry-after': String(step.retryAfterSeconds) });
        res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests.', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
        return;
      case 'slow-first-byte': {
        const timer = setTimeout(() => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res), step.delayMs);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'reset-mid-stream':
        this.resetMidStream(step.then ?? defaultLongAnswer(ex.model, step.afterChunks), step.afterChunks, ex, res);
        return;
      case 'malformed-json':
        if (!ex.stream) {
          res.writeHead(200, { 'content-type': JSON_TYPE });
          res.end('{"id":"chatcmpl-broken","choices":[{"index":0,"message":');
          return;
        }
        res.writeHead(200, SSE_HEADERS);
        res.end(this.streamEvents({ text: '' }, ex).slice(0, 1).join('') + 'data: {not json\n\n' + DONE);
        return;
      case 'stream-error': {
        const error = step.error ?? DEFAULT_ERROR;
        if (!ex.stream) {
          sendJson(res, 200, { error });
          return;
        }
        const events = this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 1);
        res.writeHead(200, SSE_HEADERS);
        res.end(events.join('') + `data: ${JSON.stringify({ error })}\n\n`);
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
      sendJson(res, step.status ?? 200, this.completion(step, ex));
      return;
    }
    const events = this.streamEvents(step, ex);
    if (step.omitDone !== true) events.push(DONE);
    res.writeHead(step.status ?? 200, SSE_HEADERS);
    const delay = step.chunkDelayMs ?? 0;
    if (delay <= 0) {
      res.end(events.join(''));
      return;
    }
    writePaced(res, events, delay);
  }

  /**
   * The unscripted answer, rendered once per kind of request and then only stamped with a
   * fresh id: this is the benchmarks' path.
   */
  private respondDefault(ex: Exchange, res: ServerResponse): void {
    const key = `${ex.stream ? (ex.includeUsage ? 'su' : 's') : 'j'}:${ex.promptTokens}:${ex.model}`;
    let segments = this.defaults.get(key);
    if (segments === undefined) {
      const step: AnswerStep = { text: `Hello from ${ex.model}` };
      const text = ex.stream ? this.streamEvents(step, ex, ID_SLOT).join('') + DONE : JSON.stringify(this.completion(step, ex, ID_SLOT));
      segments = text.split(ID_SLOT);
      if (this.defaults.size >= 1000) this.defaults.clear();
      this.defaults.set(key, segments);
    }
    const body = segments.join(this.nextId());
    if (ex.stream) res.writeHead(200, SSE_HEADERS);
    else res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private resetMidStream(step: AnswerStep, afterChunks: number, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream) {
      const body = JSON.stringify(this.completion(step, ex));
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, body.length >> 1), () => this.cut(res));
      return;
    }
    const events = this.streamEvents(step, ex).slice(0, afterChunks);
    res.writeHead(200, SSE_HEADERS);
    res.write(events.join(''), () => this.cut(res));
  }

  private cut(res: ServerResponse): void {
    this.resets.add(res);
    res.destroy();
  }

  private nextId(): string {
    return `chatcmpl-emu-${++this.counter}`;
  }

  /** The non-streamed body, shaped like the reference's recorded example. */
  private completion(step: AnswerStep, ex: Exchange, id = this.nextId()): Record<string, unknown> {
    const toolCalls = step.toolCalls?.map((call, i) => ({ id: call.id ?? `call_emu_${this.counter}_${i}`, type: 'function', function: { name: call.name, arguments: call.arguments } }));
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: step.text ?? (toolCalls !== undefined ? null : ''),
      refusal: null,
      annotations: [],
    };
    if (step.reasoning !== undefined) message[step.reasoningField ?? 'reasoning_content'] = step.reasoning;
    if (toolCalls !== undefined) message.tool_calls = toolCalls;
    return {
      id,
      object: 'chat.completion',
      created: this.created,
      model: ex.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(step) }],
      usage: usageOf(step, ex),
      service_tier: 'default',
      system_fingerprint: 'fp_emulator',
    };
  }

  /** Every SSE event of a streamed answer, `[DONE]` excluded. */
  private streamEvents(step: AnswerStep, ex: Exchange, id = this.nextId()): string[] {
    // Everything before `"choices"` is the same in every chunk of this answer.
    const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(ex.model)},"system_fingerprint":"fp_emulator","choices":`;
    const tail = ex.includeUsage ? ',"usage":null}\n\n' : '}\n\n';
    const choice = (delta: Record<string, unknown>, finish: string | null): string =>
      `${head}[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${tail}`;

    const events: string[] = [choice({ role: 'assistant', content: '', refusal: null }, null)];
    if (step.reasoning !== undefined && step.reasoning.length > 0) {
      const field = step.reasoningField ?? 'reasoning_content';
      for (const piece of splitText(step.reasoning, step.chunks)) events.push(choice({ [field]: piece }, null));
    }
    if (step.text !== undefined && step.text.length > 0) {
      for (const piece of splitText(step.text, step.chunks)) events.push(choice({ content: piece }, null));
    }
    const calls = step.toolCalls ?? [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const callId = call.id ?? `call_emu_${this.counter}_${i}`;
      events.push(choice({ tool_calls: [{ index: i, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
      for (const piece of splitArguments(call.arguments)) events.push(choice({ tool_calls: [{ index: i, function: { arguments: piece } }] }, null));
    }
    const finish = finishReasonOf(step);
    if (finish !== null) events.push(choice({}, finish));
    if (ex.includeUsage) {
      events.push(`${head}[],"usage":${JSON.stringify(usageOf(step, ex))}}\n\n`);
    }
    return events;
  }
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

function finishReasonOf(step: AnswerStep): string | null {
  if (step.finishReason !== undefined) return step.finishReason;
  return step.toolCalls !== undefined && step.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageOf(step: AnswerStep, ex: Exchange): Record<string, unknown> {
  const u = step.usage;
  const prompt = u?.prompt_tokens ?? ex.promptTokens;
  const completion = u?.completion_tokens ?? estimateCompletionTokens(step);
  const promptDetails: Record<string, number> = { cached_tokens: u?.cached_tokens ?? 0, audio_tokens: 0 };
  if (u?.cache_write_tokens !== undefined) promptDetails.cache_write_tokens = u.cache_write_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: u?.reasoning_tokens ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function estimateCompletionTokens(step: AnswerStep): number {
  let chars = (step.text?.length ?? 0) + (step.reasoning?.length ?? 0);
  for (const call of step.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  return Math.max(1, Math.ceil(chars / 4));
}

const wordCache = new Map<string, string[]>();

/** `pieces` near-equal slices, or by default one per word (trailing space kept). */
function splitText(text: string, pieces: number | undefined): string[] {
  if (pieces === undefined) {
    let words = wordCache.get(text);
    if (words === undefined) {
      words = text.split(/(?<= )/);
      if (wordCache.size < 1000) wordCache.set(text, words);
    }
    return words;
  }
  const n = Math.max(1, Math.min(pieces, text.length));
  const out: string[] = [];
  let start = 0;
  for (let k = 1; k <= n; k++) {
    let end = Math.round((text.length * k) / n);
    // Never cut a surrogate pair in two.
    const code = text.charCodeAt(end);
    if (end < text.length && code >= 0xdc00 && code <= 0xdfff) end++;
    if (end > start) out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Arguments arrive in a few fragments, as real streams send them. */
function splitArguments(args: string): string[] {
  if (args.length === 0) return [];
  return splitText(args, Math.min(3, args.length));
}

/** A default answer long enough to be cut after `afterChunks` events. */
function defaultLongAnswer(model: string, afterChunks: number): AnswerStep {
  return { text: `Hello from ${model}`, chunks: afterChunks + 3 };
}
