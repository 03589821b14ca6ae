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
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { echoedHeaders, EmulatorHttp, type EmulatorFault, type RecordedRequest, type UpstreamEmulator } from './emulator-http.ts';
import { answerChunks, frame, mergeChunks, validateGeminiRequest } from './gemini-emulator-wire.ts';
import { parseVertexPath, TOKEN_PATH, tokenExchangeAnswer, vertexTokenRefusal, type VertexTestCredentials } from './vertex-route.ts';
import { geminiBatchEmbed, vertexPredictEmbed } from './embedding-answers.ts';

/** `path` is with its query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
export interface RecordedGeminiRequest extends RecordedRequest {
  /** The model named in the path. */
  model: string;
  stream: boolean;
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

/**
 * The emulators' faults; here `rate-limit` is a 429 RESOURCE_EXHAUSTED with a
 * google.rpc.RetryInfo detail, and `stream-error` an `{error: {...}}` chunk.
 */
export type GeminiFaultStep = EmulatorFault<GeminiAnswerStep, Record<string, unknown>>;

export type GeminiEmulatorStep = GeminiAnswerStep | GeminiReplayStep | GeminiFaultStep;

export interface GeminiEmulatorOptions {
  /** When set, requests must carry this `x-goog-api-key` (else 400 API_KEY_INVALID, as Gemini answers). */
  apiKey?: string;
  /**
   * Requests under Vertex AI's paths (`/v1/projects/…/publishers/google/models/{m}:…`) must
   * carry a bearer token these credentials signed (else 401 UNAUTHENTICATED); no API key there.
   */
  vertexCredentials?: VertexTestCredentials;
}

/** `baseUrl` is `http://127.0.0.1:<port>/v1beta`. */
export interface GeminiEmulator extends UpstreamEmulator<GeminiEmulatorStep, RecordedGeminiRequest> {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
}

const JSON_TYPE = 'application/json; charset=UTF-8';
const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?.*)?$/;
const EMBED_ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):batchEmbedContents$/;
const DEFAULT_ERROR = {
  code: 500,
  message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  status: 'INTERNAL',
};

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
  headers: IncomingHttpHeaders;
}

class Emulator extends EmulatorHttp<GeminiEmulatorStep, RecordedGeminiRequest> implements GeminiEmulator {
  private readonly apiKey: string | undefined;
  private readonly vertexCredentials: VertexTestCredentials | undefined;
  private counter = 0;

  constructor(options: GeminiEmulatorOptions) {
    super({ jsonType: JSON_TYPE });
    this.apiKey = options.apiKey;
    this.vertexCredentials = options.vertexCredentials;
  }

  get baseUrl(): string {
    return `${this.origin}/v1beta`;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string, body: any): void {
    const path = req.url ?? '';
    if (path === TOKEN_PATH) {
      this.answerToken(req, res, text);
      return;
    }
    const vertex = parseVertexPath(path);
    if (this.answerEmbeddings(req, res, path, vertex, body)) return;
    const route =
      vertex !== null && vertex.publisher === 'google' ? [path, 'v1', vertex.model, vertex.method, vertex.query] : ROUTE.exec(path);
    const model = route?.[2] ?? '';
    const stream = route?.[3] === 'streamGenerateContent';
    this.record({ method: req.method ?? '', path, model, stream, headers: req.headers, body });
    if (req.method !== 'POST' || route === null || (route[3] !== 'generateContent' && route[3] !== 'streamGenerateContent')) {
      this.sendError(res, 404, 'NOT_FOUND', `The requested URL ${path} was not found on this server.`);
      return;
    }
    if (vertex !== null) {
      const refused = vertexTokenRefusal(req.headers, this.vertexCredentials);
      if (refused !== null) {
        this.sendJson(res, 401, refused);
        return;
      }
    }
    if (stream && !/[?&]alt=sse(&|$)/.test(route[4] ?? '')) {
      // Without alt=sse Gemini streams one JSON array; the gateway never asks for that.
      this.sendError(res, 400, 'INVALID_ARGUMENT', 'This emulator streams only with alt=sse.');
      return;
    }
    if (vertex === null && this.apiKey !== undefined && req.headers['x-goog-api-key'] !== this.apiKey) {
      this.sendJson(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
        },
      });
      return;
    }
    const invalid = validateGeminiRequest(body, model);
    if (invalid !== null) {
      this.sendError(res, 400, 'INVALID_ARGUMENT', invalid);
      return;
    }
    this.play(this.nextStep(), { model, stream, promptTokens: Math.max(1, Math.ceil(text.length / 4)), headers: req.headers }, res);
  }

  /** Google's OAuth token endpoint (`POST /token`): a service account's JWT-bearer exchange; a scripted `hang` plays instead. */
  private answerToken(req: IncomingMessage, res: ServerResponse, text: string): void {
    this.record({ method: req.method ?? '', path: TOKEN_PATH, model: '', stream: false, headers: req.headers, body: null });
    if (req.method !== 'POST') {
      this.sendError(res, 404, 'NOT_FOUND', `The requested URL ${TOKEN_PATH} was not found on this server.`);
      return;
    }
    if (this.nextStep()?.fault === 'hang') return;
    const answer = tokenExchangeAnswer(text, `${this.origin}${TOKEN_PATH}`, this.vertexCredentials);
    this.sendJson(res, answer.status, answer.json);
  }

  /** `batchEmbedContents`, and Vertex's `:predict` (embedding-answers.ts); false for any other path. */
  private answerEmbeddings(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    vertex: ReturnType<typeof parseVertexPath>,
    body: any,
  ): boolean {
    const gemini = EMBED_ROUTE.exec(path);
    const predict = vertex !== null && vertex.publisher === 'google' && vertex.method === 'predict';
    if (gemini === null && !predict) return false;
    const model = predict ? vertex.model : gemini![2]!;
    this.record({ method: req.method ?? '', path, model, stream: false, headers: req.headers, body });
    const refused = predict ? vertexTokenRefusal(req.headers, this.vertexCredentials) : null;
    if (refused !== null) this.sendJson(res, 401, refused);
    else if (!predict && this.apiKey !== undefined && req.headers['x-goog-api-key'] !== this.apiKey)
      this.sendError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    else {
      const answer = predict ? vertexPredictEmbed(body, model) : geminiBatchEmbed(body, model);
      this.sendJson(res, answer.status, answer.json, answer.headers);
    }
    return true;
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
      case 'status':
        this.sendBody(res, step.status, step.body ?? { error: DEFAULT_ERROR }, step.headers);
        return;
      case 'rate-limit':
        this.sendJson(res, 429, {
          error: {
            code: 429,
            message: 'You exceeded your current quota, please check your plan and billing details.',
            status: 'RESOURCE_EXHAUSTED',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
                violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
              },
              { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${step.retryAfterSeconds}s` },
            ],
          },
        });
        return;
      case 'slow-first-byte':
        this.later(res, step.delayMs, () => this.respond(step.then ?? { text: `Hello from ${ex.model}` }, ex, res));
        return;
      case 'reset-mid-stream': {
        const chunks = this.chunksOf(step.then ?? { text: `Hello from ${ex.model}`, chunks: step.afterChunks + 3 }, ex);
        if (ex.stream) this.cutEvents(res, chunks.slice(0, step.afterChunks).map(frame));
        else this.cutBody(res, JSON.stringify(mergeChunks(chunks)));
        return;
      }
      case 'malformed-json':
        if (ex.stream) this.sendEvents(res, 200, [frame(this.chunksOf({ text: 'Hello' }, ex)[0]!), 'data: {not json\r\n\r\n']);
        else this.sendBody(res, 200, '{"candidates":[{"content":{"parts":[{"text":');
        return;
      case 'stream-error': {
        const error = { error: step.error ?? DEFAULT_ERROR };
        if (!ex.stream) {
          this.sendJson(res, 200, error);
          return;
        }
        const before = this.chunksOf({ text: `Hello from ${ex.model}`, finishReason: null }, ex).slice(0, step.afterChunks ?? 1);
        this.sendEvents(res, 200, [...before.map(frame), frame(error)]);
        return;
      }
      case 'hang':
        return;
      case 'stall-after-headers':
        this.stallAfterHeaders(
          res,
          ex.stream,
          ex.stream
            ? this.chunksOf({ text: `Hello from ${ex.model}` }, ex)
                .slice(0, step.afterChunks ?? 0)
                .map(frame)
            : [],
        );
        return;
      case 'echo-headers': {
        const code = step.status === 200 ? 500 : step.status;
        const error = {
          error: {
            code,
            message: echoedHeaders(ex.headers),
            status: code === 401 ? 'UNAUTHENTICATED' : code === 403 ? 'PERMISSION_DENIED' : 'INTERNAL',
            details: [{ received_headers: ex.headers }],
          },
        };
        if (step.status !== 200) this.sendBody(res, step.status, error);
        else if (!ex.stream) this.sendJson(res, 200, error);
        else
          this.sendEvents(res, 200, [
            ...this.chunksOf({ text: `Hello from ${ex.model}`, finishReason: null }, ex)
              .slice(0, 1)
              .map(frame),
            frame(error),
          ]);
        return;
      }
      case 'oversized-event':
        this.sendOversizedEvent(
          res,
          this.chunksOf({ text: `Hello from ${ex.model}`, finishReason: null }, ex)
            .slice(0, step.afterChunks ?? 0)
            .map(frame),
          step.chars,
        );
        return;
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private respond(step: GeminiAnswerStep, ex: Exchange, res: ServerResponse): void {
    const chunks = this.chunksOf(step, ex);
    if (ex.stream) this.sendEvents(res, step.status ?? 200, chunks.map(frame), step.chunkDelayMs);
    else this.sendJson(res, step.status ?? 200, mergeChunks(chunks));
  }

  private replay(fixture: GeminiFixture, ex: Exchange, res: ServerResponse): void {
    if (ex.stream) this.sendEvents(res, 200, fixture.chunks.map(frame));
    else this.sendJson(res, 200, mergeChunks(fixture.chunks));
  }

  private sendError(res: ServerResponse, code: number, status: string, message: string): void {
    this.sendJson(res, code, { error: { code, message, status } });
  }

  private chunksOf(step: GeminiAnswerStep, ex: Exchange): Array<Record<string, unknown>> {
    return answerChunks(step, ex.model, ex.promptTokens, `emu${(++this.counter).toString(36)}GeminiResp`);
  }
}
