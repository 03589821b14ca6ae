// An upstream that speaks the OpenAI chat-completions wire format (reference/wire-formats.md
// §0, §1) over real HTTP on loopback. It records what it received and plays scripted answers
// and faults, in order; with nothing scripted it answers deterministically from the request.
// Benchmarks use it too, so the default path stays cheap: one JSON.parse of the request, a
// few small JSON.stringify calls, one write.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  echoedHeaders,
  EmulatorHttp,
  SSE_HEADERS,
  type EmulatorFault,
  type RecordedRequest as EmulatorRequest,
  type UpstreamEmulator,
} from './emulator-http.ts';
import { PromptPrefixCache } from './prompt-prefix-cache.ts';
import { splitText } from './split-text.ts';
import { countPrompt, loadCounter, type Counter } from './token-counter.ts';

export interface RecordedRequest extends EmulatorRequest {
  /** Arrival order across every OpenAI emulator of this process: tells which of several upstreams was asked first. */
  seq: number;
}

export interface EmulatorToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** Spoken output, as OpenAI's `audio` modality answers it. */
export interface EmulatorAudio {
  /** Default `audio_emu_<n>`. */
  id?: string;
  /** Base64 audio bytes. */
  data: string;
  transcript: string;
  /** Default an hour after the answer. */
  expiresAt?: number;
  /** How many pieces the data and the transcript are each streamed in (default 2). */
  chunks?: number;
}

export interface EmulatorUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  /** `completion_tokens_details.audio_tokens` (part of `completion_tokens`). */
  audio_tokens?: number;
}

export interface AnswerStep {
  fault?: undefined;
  text?: string;
  reasoning?: string;
  /** Where reasoning goes: `reasoning_content` (DeepSeek, vLLM) by default, or `reasoning` (OpenRouter). */
  reasoningField?: 'reasoning' | 'reasoning_content';
  toolCalls?: EmulatorToolCall[];
  /** Spoken output: `message.audio`, or `delta.audio` pieces (the id first, `expires_at` last). */
  audio?: EmulatorAudio;
  /** Generated images, OpenRouter's way: `message.images`, or one `delta.images` chunk each. */
  images?: string[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`; null sends no finish reason. */
  finishReason?: string | null;
  usage?: EmulatorUsage;
  /** Send no usage at all (no `usage` field; streamed, no usage chunk), as some upstreams do. */
  omitUsage?: boolean;
  /** How many pieces the text is split into when streaming (default: one per word). */
  chunks?: number;
  /** Pause between streamed events. */
  chunkDelayMs?: number;
  /** Stream: send the first `events` SSE events, the rest (usage included) once `until` settles. */
  pauseAfter?: { events: number; until: Promise<unknown> };
  /**
   * Hold this answer until this emulator has received that many requests since its last
   * reset: makes requests overlap for sure, without timing (concurrency tests).
   */
  holdUntilRequests?: number;
  /** HTTP status of the answer (default 200). */
  status?: number;
  /** End the stream without `data: [DONE]`. */
  omitDone?: boolean;
}

/**
 * The emulators' faults; here `malformed-json` streams a `data: {not json` line after the
 * role chunk, and `stream-error` is a `data: {"error":{...}}` line.
 */
export type FaultStep = EmulatorFault<AnswerStep, Record<string, unknown>> | HeldStep;

/**
 * The answer (`then`, else the default one) once `until` settles: an upstream that answers
 * when the test says so, so tests wait for events rather than for time.
 */
export interface HeldStep {
  fault: 'held';
  until: Promise<unknown>;
  then?: AnswerStep;
  /** Streamed: the first `afterChunks` events of `then` go out at once, the rest once `until` settles. */
  afterChunks?: number;
}

/** A gate for `held` steps: `open()` lets every answer held on it go. */
export function gate(): { until: Promise<void>; open(): void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { until: promise, open: () => resolve() };
}

export type EmulatorStep = AnswerStep | FaultStep;

export interface OpenAIChatEmulatorOptions {
  /** Keep every request in `requests` (default true; benchmarks turn it off). */
  record?: boolean;
  /**
   * Count usage as OpenAI does, with a real encoding: prompt = 3 + Σ(4 + tokens of each
   * message's text), completion = tokens of the text and reasoning produced. Default: about
   * four characters per token. A step's own `usage` still wins.
   */
  countWith?: 'o200k_base' | 'cl100k_base';
  /** Report `cached_tokens` for prompt prefixes seen before (prompt-prefix-cache.ts) in default answers. */
  promptCache?: boolean;
}

/** `baseUrl` is `http://127.0.0.1:<port>/v1`. */
export type OpenAIChatEmulator = UpstreamEmulator<EmulatorStep, RecordedRequest> & {
  readonly promptCache: PromptPrefixCache | null;
  readonly refusedKeys: Set<string>;
};

const DONE = 'data: [DONE]\n\n';
const ID_SLOT = '@@EMULATOR_ID@@';
/** Requests received by any OpenAI emulator so far (`RecordedRequest.seq`). */
let arrivals = 0;
const DEFAULT_ERROR = { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null };

interface Exchange {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  promptTokens: number;
  count: Counter | null;
  headers: IncomingHttpHeaders;
}

export async function startOpenAIChatEmulator(options: OpenAIChatEmulatorOptions = {}): Promise<OpenAIChatEmulator> {
  const counter = options.countWith === undefined ? null : await loadCounter(options.countWith);
  const emulator = new Emulator(options.record ?? true, counter, options.promptCache === true ? new PromptPrefixCache() : null);
  await emulator.listen();
  return emulator;
}

class Emulator extends EmulatorHttp<EmulatorStep, RecordedRequest> implements OpenAIChatEmulator {
  private readonly created = Math.floor(Date.now() / 1000);
  private counter = 0;
  /** Rendered default answers, split around the response id. */
  private readonly defaults = new Map<string, string[]>();

  private readonly count: Counter | null;
  /** Requests received since the last reset (`holdUntilRequests`). */
  private arrived = 0;
  private readonly waitingForArrivals: Array<{ step: AnswerStep; ex: Exchange; res: ServerResponse; until: number }> = [];

  readonly promptCache: PromptPrefixCache | null;
  /** Bearer keys answered 401 on every route (a revoked key). */
  readonly refusedKeys = new Set<string>();

  constructor(record: boolean, count: Counter | null, promptCache: PromptPrefixCache | null) {
    super({ record });
    this.count = count;
    this.promptCache = promptCache;
  }

  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string, body: any): void {
    this.record({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, seq: ++arrivals });
    // A key the test marked refused: 401 on any route, as OpenAI answers a revoked key.
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (this.refusedKeys.has(bearer)) {
      this.sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
      return;
    }
    // The model list: the cheap authenticated call a key is checked with.
    if (req.method === 'GET' && req.url === '/v1/models') {
      this.sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'gpt-4o-mini', object: 'model', created: this.created, owned_by: 'system' }],
      });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      this.sendJson(res, 404, {
        error: { message: `Unknown route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: 'unknown_url' },
      });
      return;
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) {
      this.sendJson(res, 400, {
        error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null },
      });
      return;
    }
    const exchange: Exchange = {
      model: typeof body.model === 'string' ? body.model : 'unknown',
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
      // Cheap and deterministic: about four characters per token.
      promptTokens: this.count === null ? Math.max(1, Math.ceil(text.length / 4)) : countPrompt(body.messages, this.count),
      count: this.count,
      headers: req.headers,
    };
    this.arrived++;
    let step = this.nextStep();
    if (step === undefined && this.promptCache !== null) {
      const text = `Hello from ${exchange.model}`;
      step = {
        text,
        usage: {
          prompt_tokens: exchange.promptTokens,
          completion_tokens: Math.ceil(text.length / 4),
          cached_tokens: this.promptCache.read(body.messages),
        },
      };
    }
    if (step !== undefined && step.fault === undefined && step.holdUntilRequests !== undefined && this.arrived < step.holdUntilRequests) {
      this.waitingForArrivals.push({ step, ex: exchange, res, until: step.holdUntilRequests });
    } else {
      this.play(step, exchange, res);
    }
    this.releaseHeld();
  }

  override reset(): void {
    super.reset();
    this.arrived = 0;
    this.waitingForArrivals.length = 0;
  }

  private releaseHeld(): void {
    for (let i = 0; i < this.waitingForArrivals.length; i++) {
      const h = this.waitingForArrivals[i]!;
      if (this.arrived < h.until) continue;
      this.waitingForArrivals.splice(i--, 1);
      this.play(h.step, h.ex, h.res);
    }
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
      case 'status':
        this.sendBody(res, step.status, step.body ?? { error: DEFAULT_ERROR }, step.headers);
        return;
      case 'rate-limit':
        this.sendBody(
          res,
          429,
          { error: { message: 'Rate limit reached for requests.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
          { 'retry-after': String(step.retryAfterSeconds) },
        );
        return;
      case 'slow-first-byte':
        this.later(res, step.delayMs, () => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res));
        return;
      case 'reset-mid-stream': {
        const answer = step.then ?? defaultLongAnswer(ex.model, step.afterChunks);
        if (ex.stream) this.cutEvents(res, this.streamEvents(answer, ex).slice(0, step.afterChunks));
        else this.cutBody(res, JSON.stringify(this.completion(answer, ex)));
        return;
      }
      case 'malformed-json':
        if (ex.stream) this.sendEvents(res, 200, [this.streamEvents({ text: '' }, ex)[0]!, 'data: {not json\n\n', DONE]);
        else this.sendBody(res, 200, '{"id":"chatcmpl-broken","choices":[{"index":0,"message":');
        return;
      case 'stream-error': {
        const error = step.error ?? DEFAULT_ERROR;
        if (!ex.stream) {
          this.sendJson(res, 200, { error });
          return;
        }
        const events = this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 1);
        this.sendEvents(res, 200, [...events, `data: ${JSON.stringify({ error })}\n\n`]);
        return;
      }
      case 'hang':
        return;
      case 'held':
        this.held(step, ex, res);
        return;
      case 'stall-after-headers':
        this.stallAfterHeaders(
          res,
          ex.stream,
          ex.stream ? this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 0) : [],
        );
        return;
      case 'echo-headers': {
        const error = {
          message: echoedHeaders(ex.headers),
          type: 'invalid_request_error',
          param: null,
          code: 'echo',
          received_headers: ex.headers,
        };
        if (step.status !== 200) this.sendBody(res, step.status, { error });
        else if (!ex.stream) this.sendJson(res, 200, { error });
        else
          this.sendEvents(res, 200, [
            ...this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, 2),
            `data: ${JSON.stringify({ error })}\n\n`,
          ]);
        return;
      }
      case 'oversized-event':
        this.sendOversizedEvent(res, this.streamEvents({ text: `Hello from ${ex.model}` }, ex).slice(0, step.afterChunks ?? 0), step.chars);
        return;
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private held(step: HeldStep, ex: Exchange, res: ServerResponse): void {
    const answer = step.then ?? { text: `Hello from ${ex.model}` };
    let open = true;
    res.on('close', () => {
      open = false;
    });
    const early = ex.stream ? (step.afterChunks ?? 0) : 0;
    if (early === 0) {
      void step.until.then(() => {
        if (open) this.respond(answer, ex, res);
      });
      return;
    }
    const events = this.streamEvents(answer, ex);
    if (answer.omitDone !== true) events.push(DONE);
    res.writeHead(answer.status ?? 200, SSE_HEADERS);
    res.write(events.slice(0, early).join(''));
    void step.until.then(() => {
      if (open) res.end(events.slice(early).join(''));
    });
  }

  private respond(step: AnswerStep, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream) {
      this.sendJson(res, step.status ?? 200, this.completion(step, ex));
      return;
    }
    const events = this.streamEvents(step, ex);
    if (step.omitDone !== true) events.push(DONE);
    const pause = step.pauseAfter;
    if (pause !== undefined) {
      res.writeHead(step.status ?? 200, SSE_HEADERS);
      res.write(events.slice(0, pause.events).join(''));
      void pause.until.then(() => {
        if (!res.destroyed) res.end(events.slice(pause.events).join(''));
      });
      return;
    }
    this.sendEvents(res, step.status ?? 200, events, step.chunkDelayMs);
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
    else res.writeHead(200, { 'content-type': this.jsonType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private nextId(): string {
    return `chatcmpl-emu-${++this.counter}`;
  }

  /** The non-streamed body, shaped like the reference's recorded example. */
  private completion(step: AnswerStep, ex: Exchange, id = this.nextId()): Record<string, unknown> {
    const toolCalls = step.toolCalls?.map((call, i) => ({
      id: call.id ?? `call_emu_${this.counter}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: step.text ?? (toolCalls !== undefined || step.audio !== undefined ? null : ''),
      refusal: null,
      annotations: [],
    };
    if (step.reasoning !== undefined) message[step.reasoningField ?? 'reasoning_content'] = step.reasoning;
    if (toolCalls !== undefined) message.tool_calls = toolCalls;
    if (step.audio !== undefined) {
      const a = step.audio;
      message.audio = {
        id: a.id ?? `audio_emu_${this.counter}`,
        data: a.data,
        expires_at: a.expiresAt ?? this.created + 3600,
        transcript: a.transcript,
      };
    }
    if (step.images !== undefined) message.images = step.images.map((url) => ({ type: 'image_url', image_url: { url } }));
    return {
      id,
      object: 'chat.completion',
      created: this.created,
      model: ex.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(step) }],
      ...(step.omitUsage === true ? {} : { usage: usageOf(step, ex) }),
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
    if (step.audio !== undefined) {
      // As OpenAI streams it: the id with the first piece of the transcript, then the rest of
      // it, then the data (cut on whole base64 groups), then `expires_at`.
      const a = step.audio;
      const pieces = a.chunks ?? 2;
      const transcript = a.transcript.length > 0 ? splitText(a.transcript, Math.min(pieces, a.transcript.length)) : [''];
      events.push(choice({ audio: { id: a.id ?? `audio_emu_${this.counter}`, transcript: transcript[0] } }, null));
      for (const piece of transcript.slice(1)) events.push(choice({ audio: { transcript: piece } }, null));
      for (const piece of splitBase64(a.data, pieces)) events.push(choice({ audio: { data: piece } }, null));
      events.push(choice({ audio: { expires_at: a.expiresAt ?? this.created + 3600 } }, null));
    }
    const images = step.images ?? [];
    for (let i = 0; i < images.length; i++)
      events.push(choice({ images: [{ type: 'image_url', image_url: { url: images[i] }, index: i }] }, null));
    const calls = step.toolCalls ?? [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const callId = call.id ?? `call_emu_${this.counter}_${i}`;
      events.push(choice({ tool_calls: [{ index: i, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
      for (const piece of splitArguments(call.arguments))
        events.push(choice({ tool_calls: [{ index: i, function: { arguments: piece } }] }, null));
    }
    const finish = finishReasonOf(step);
    if (finish !== null) events.push(choice({}, finish));
    if (ex.includeUsage && step.omitUsage !== true) {
      events.push(`${head}[],"usage":${JSON.stringify(usageOf(step, ex))}}\n\n`);
    }
    return events;
  }
}

function finishReasonOf(step: AnswerStep): string | null {
  if (step.finishReason !== undefined) return step.finishReason;
  return step.toolCalls !== undefined && step.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageOf(step: AnswerStep, ex: Exchange): Record<string, unknown> {
  const u = step.usage;
  const prompt = u?.prompt_tokens ?? ex.promptTokens;
  const completion =
    u?.completion_tokens ?? (ex.count === null ? estimateCompletionTokens(step) : ex.count((step.reasoning ?? '') + (step.text ?? '')));
  const promptDetails: Record<string, number> = { cached_tokens: u?.cached_tokens ?? 0, audio_tokens: 0 };
  if (u?.cache_write_tokens !== undefined) promptDetails.cache_write_tokens = u.cache_write_tokens;
  const audioTokens = u?.audio_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: {
      reasoning_tokens: u?.reasoning_tokens ?? 0,
      audio_tokens: audioTokens,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function estimateCompletionTokens(step: AnswerStep): number {
  let chars = (step.text?.length ?? 0) + (step.reasoning?.length ?? 0) + (step.audio?.transcript.length ?? 0);
  for (const call of step.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  return Math.max(1, Math.ceil(chars / 4));
}

/** Base64 in `pieces` parts cut on whole 4-character groups, so each part decodes on its own. */
function splitBase64(data: string, pieces: number): string[] {
  if (data.length === 0) return [];
  const groups = Math.ceil(data.length / 4);
  const per = Math.max(1, Math.ceil(groups / pieces)) * 4;
  const out: string[] = [];
  for (let i = 0; i < data.length; i += per) out.push(data.slice(i, i + per));
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
