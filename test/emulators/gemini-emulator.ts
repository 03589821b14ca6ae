// An upstream that speaks the Gemini API wire format (reference/wire-formats.md §0, §4) over
// real HTTP on loopback: `POST /v1beta/models/{model}:generateContent` and
// `:streamGenerateContent?alt=sse` (also under `/v1`, the @google/genai default), SSE
// events framed `data: {...}\r\n\r\n` with no terminator, usage repeated on every chunk.
// It records what it received and plays scripted answers, recorded fixtures and faults, in
// order; with nothing scripted it answers deterministically from the request.
//
// Two documented validations are enforced, so tests of the gateway's side mean something:
// a `thinkingConfig` with both a budget and a level is refused (400), and a Gemini 3 model
// refuses a history whose first function call of a model turn lacks its thought signature.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerChunks, frame, mergeChunks, validateGeminiRequest } from './gemini-emulator-wire.ts';

export interface RecordedGeminiRequest {
  method: string;
  /** Path with query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  /** The model named in the path. */
  model: string;
  stream: boolean;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse). */
  body: any;
}

export interface GeminiEmulatorCall {
  name: string;
  args: Record<string, unknown>;
  thoughtSignature?: string;
  id?: string;
}

export interface GeminiEmulatorUsage {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

export interface GeminiAnswerStep {
  fault?: undefined;
  replay?: undefined;
  text?: string;
  /** Thought summaries (`thought: true` parts), sent before the answer. */
  thoughts?: string;
  functionCalls?: GeminiEmulatorCall[];
  /** A trailing empty text part carrying this signature, on the last chunk (Gemini 3 does this). */
  trailingSignature?: string;
  /** Default `STOP`; null sends none. */
  finishReason?: string | null;
  /** Block the prompt: no candidates, `promptFeedback.blockReason`. */
  blockReason?: string;
  usage?: GeminiEmulatorUsage;
  /** How many chunks the text is streamed in (default: one per word). */
  chunks?: number;
  chunkDelayMs?: number;
  status?: number;
}

/** A recorded answer: the stream's chunks (a non-streamed request gets them merged into one response). */
export interface GeminiFixture {
  chunks: Array<Record<string, unknown>>;
}

export interface GeminiReplayStep {
  fault?: undefined;
  replay: GeminiFixture;
}

export type GeminiFaultStep =
  | { fault: 'status'; status: number; body?: string | Record<string, unknown>; headers?: Record<string, string> }
  /** 429 RESOURCE_EXHAUSTED with a google.rpc.RetryInfo detail. */
  | { fault: 'rate-limit'; retryAfterSeconds: number }
  | { fault: 'slow-first-byte'; delayMs: number; then?: GeminiAnswerStep }
  /** Destroys the socket after `afterChunks` SSE events (non-stream: after part of the body). */
  | { fault: 'reset-mid-stream'; afterChunks: number; then?: GeminiAnswerStep }
  /** Non-stream: a 200 whose body is not JSON. Stream: a broken `data:` line after the first chunk. */
  | { fault: 'malformed-json' }
  /** Stream: an `{error: {...}}` chunk after `afterChunks` events. Non-stream: a 200 holding it. */
  | { fault: 'stream-error'; afterChunks?: number; error?: Record<string, unknown> }
  | { fault: 'hang' };

export type GeminiEmulatorStep = GeminiAnswerStep | GeminiReplayStep | GeminiFaultStep;

export interface GeminiEmulatorOptions {
  /** When set, requests must carry this `x-goog-api-key` (else 400 API_KEY_INVALID, as Gemini answers). */
  apiKey?: string;
}

export interface GeminiEmulator {
  /** `http://127.0.0.1:<port>/v1beta` */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: RecordedGeminiRequest[];
  /** Responses the client walked away from before they were complete (deliberate resets excluded). */
  readonly closedEarly: number;
  enqueue(...steps: GeminiEmulatorStep[]): void;
  reset(): void;
  close(): Promise<void>;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;
const JSON_TYPE = 'application/json; charset=UTF-8';
const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?.*)?$/;
const DEFAULT_ERROR = { code: 500, message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting', status: 'INTERNAL' };

export async function startGeminiEmulator(options: GeminiEmulatorOptions = {}): Promise<GeminiEmulator> {
  const emulator = new Emulator(options);
  await emulator.listen();
  return emulator;
}

/** A fixture file under test/emulators/fixtures/gemini/. */
export function loadGeminiFixture(name: string): GeminiFixture {
  return JSON.parse(readFileSync(new URL(`./fixtures/gemini/${name}.json`, import.meta.url), 'utf8')) as GeminiFixture;
}

interface Exchange {
  model: string;
  stream: boolean;
  promptTokens: number;
}

class Emulator implements GeminiEmulator {
  baseUrl = '';
  origin = '';
  readonly requests: RecordedGeminiRequest[] = [];
  closedEarly = 0;
  private readonly options: GeminiEmulatorOptions;
  private readonly steps: GeminiEmulatorStep[] = [];
  private readonly server: Server;
  private readonly resets = new WeakSet<ServerResponse>();
  private counter = 0;

  constructor(options: GeminiEmulatorOptions) {
    this.options = options;
    this.server = createServer((req, res) => this.onRequest(req, res));
    this.server.keepAliveTimeout = 60_000;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
        this.baseUrl = `${this.origin}/v1beta`;
        resolve();
      });
    });
  }

  enqueue(...steps: GeminiEmulatorStep[]): void {
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
    const path = req.url ?? '';
    const route = ROUTE.exec(path);
    const model = route?.[2] ?? '';
    const stream = route?.[3] === 'streamGenerateContent';
    this.requests.push({ method: req.method ?? '', path, model, stream, headers: req.headers, body });
    if (req.method !== 'POST' || route === null) {
      sendError(res, 404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
      return;
    }
    if (stream && !/[?&]alt=sse(&|$)/.test(route[4] ?? '')) {
      // Without alt=sse Gemini streams one JSON array; the gateway never asks for that.
      sendError(res, 400, 'INVALID_ARGUMENT', 'This emulator streams only with alt=sse.');
      return;
    }
    if (this.options.apiKey !== undefined && req.headers['x-goog-api-key'] !== this.options.apiKey) {
      sendJson(res, 400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } });
      return;
    }
    const invalid = validateGeminiRequest(body, model);
    if (invalid !== null) {
      sendError(res, 400, 'INVALID_ARGUMENT', invalid);
      return;
    }
    this.play(this.steps.shift(), { model, stream, promptTokens: Math.max(1, Math.ceil(text.length / 4)) }, res);
  }

  private play(step: GeminiEmulatorStep | undefined, ex: Exchange, res: ServerResponse): void {
    if (step === undefined) {
      this.respond({ text: `Hello from ${ex.model}` }, ex, res);
      return;
    }
    if (step.fault === undefined) {
      if (step.replay !== undefined) this.replay(step.replay, ex, res);
      else this.respond(step, ex, res);
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
        sendJson(res, 429, {
          error: {
            code: 429,
            message: 'You exceeded your current quota, please check your plan and billing details.',
            status: 'RESOURCE_EXHAUSTED',
            details: [
              { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
              { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${step.retryAfterSeconds}s` },
            ],
          },
        });
        return;
      case 'slow-first-byte': {
        const timer = setTimeout(() => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res), step.delayMs);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'reset-mid-stream': {
        const answer = step.then ?? { text: `Hello from ${ex.model}`, chunks: step.afterChunks + 3 };
        const chunks = this.chunksOf(answer, ex);
        if (!ex.stream) {
          const body = JSON.stringify(mergeChunks(chunks));
          res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
          res.write(body.slice(0, body.length >> 1), () => this.cut(res));
          return;
        }
        res.writeHead(200, SSE_HEADERS);
        res.write(chunks.slice(0, step.afterChunks).map(frame).join(''), () => this.cut(res));
        return;
      }
      case 'malformed-json':
        if (!ex.stream) {
          res.writeHead(200, { 'content-type': JSON_TYPE });
          res.end('{"candidates":[{"content":{"parts":[{"text":');
          return;
        }
        res.writeHead(200, SSE_HEADERS);
        res.end(frame(this.chunksOf({ text: 'Hello' }, ex)[0]!) + 'data: {not json\r\n\r\n');
        return;
      case 'stream-error': {
        const error = { error: step.error ?? DEFAULT_ERROR };
        if (!ex.stream) {
          sendJson(res, 200, error);
          return;
        }
        const before = this.chunksOf({ text: `Hello from ${ex.model}`, finishReason: null }, ex).slice(0, step.afterChunks ?? 1);
        res.writeHead(200, SSE_HEADERS);
        res.end(before.map(frame).join('') + frame(error));
        return;
      }
      case 'hang':
        return;
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private respond(step: GeminiAnswerStep, ex: Exchange, res: ServerResponse): void {
    const chunks = this.chunksOf(step, ex);
    if (!ex.stream) {
      sendJson(res, step.status ?? 200, mergeChunks(chunks));
      return;
    }
    res.writeHead(step.status ?? 200, SSE_HEADERS);
    const events = chunks.map(frame);
    const delay = step.chunkDelayMs ?? 0;
    if (delay <= 0) res.end(events.join(''));
    else writePaced(res, events, delay);
  }

  private replay(fixture: GeminiFixture, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream) {
      sendJson(res, 200, mergeChunks(fixture.chunks));
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.end(fixture.chunks.map(frame).join(''));
  }

  private cut(res: ServerResponse): void {
    this.resets.add(res);
    res.destroy();
  }

  private chunksOf(step: GeminiAnswerStep, ex: Exchange): Array<Record<string, unknown>> {
    return answerChunks(step, ex.model, ex.promptTokens, `emu${(++this.counter).toString(36)}GeminiResp`);
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, code: number, status: string, message: string): void {
  sendJson(res, code, { error: { code, message, status } });
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
