// An upstream that speaks AWS Bedrock's Converse API (reference/wire-formats.md §5) over real
// HTTP on loopback: `POST /model/{modelId}/converse` (JSON) and `/converse-stream` (AWS
// event-stream binary frames), and the control plane's `GET /foundation-models`
// (ListFoundationModels, what a BYOK key pair is checked with). Every request must be SigV4-signed (service `bedrock`) with
// TEST_AWS_CREDENTIALS, or carry the bearer API key it was given; a bad signature is a 403
// InvalidSignatureException, as Bedrock answers. It records what it received and plays
// scripted answers and the emulators' common faults, in order; with nothing scripted it
// answers deterministically from the request. Beside the other emulators, same API.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  checkSignature,
  converseAnswer,
  converseStreamFrames,
  encodeFrame,
  encodeRawEventFrame,
  ERROR_TYPES,
  type BedrockAnswerStep,
  type Frame,
} from './bedrock-emulator-wire.ts';
import { bedrockInvokeEmbed } from './embedding-answers.ts';
import { echoedHeaders, EmulatorHttp, type EmulatorFault, type RecordedRequest, type UpstreamEmulator } from './emulator-http.ts';

export { TEST_AWS_CREDENTIALS, type BedrockAnswerStep } from './bedrock-emulator-wire.ts';

export interface RecordedBedrockRequest extends RecordedRequest {
  /** The model id from the path, URL-decoded. */
  model: string;
  stream: boolean;
}

/** `stream-error` sends an exception frame of this type (default `internalServerException`). */
export type BedrockFaultStep = EmulatorFault<BedrockAnswerStep, { type: string; message: string }>;
export type BedrockEmulatorStep = BedrockAnswerStep | BedrockFaultStep;

export interface BedrockEmulatorOptions {
  /** Also accept `Authorization: Bearer <apiKey>` (a Bedrock API key). */
  apiKey?: string;
  /** A session token (`x-amz-security-token`) whose time is over: 403 ExpiredTokenException, as STS credentials past their end. */
  expiredSessionToken?: string;
}

/** `baseUrl` is `http://127.0.0.1:<port>`: clients append `/model/{id}/converse`. */
export type BedrockEmulator = UpstreamEmulator<BedrockEmulatorStep, RecordedBedrockRequest>;

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
/** InvokeModel, for the embedding models (embedding-answers.ts). */
const INVOKE_ROUTE = /^\/model\/([^/]+)\/invoke$/;
/** ListFoundationModels, on the control plane (`bedrock.<region>.amazonaws.com`; here the same origin). */
const FOUNDATION_MODELS = /^\/foundation-models(\?.*)?$/;
const EVENTSTREAM_HEADERS = { 'content-type': 'application/vnd.amazon.eventstream' } as const;

interface Exchange {
  model: string;
  stream: boolean;
  promptTokens: number;
  headers: IncomingHttpHeaders;
}

export async function startBedrockEmulator(options: BedrockEmulatorOptions = {}): Promise<BedrockEmulator> {
  const emulator = new Emulator(options);
  await emulator.listen();
  return emulator;
}

class Emulator extends EmulatorHttp<BedrockEmulatorStep, RecordedBedrockRequest> implements BedrockEmulator {
  private readonly apiKey: string | undefined;
  private readonly expiredSessionToken: string | undefined;
  private counter = 0;

  constructor(options: BedrockEmulatorOptions) {
    super();
    this.apiKey = options.apiKey;
    this.expiredSessionToken = options.expiredSessionToken;
  }

  get baseUrl(): string {
    return this.origin;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string, body: any): void {
    const path = req.url ?? '';
    const route = ROUTE.exec(path);
    const invoke = INVOKE_ROUTE.exec(path);
    const model = route === null ? (invoke === null ? '' : decodeURIComponent(invoke[1]!)) : decodeURIComponent(route[1]!);
    const stream = route?.[2] === 'converse-stream';
    this.record({ method: req.method ?? '', path, model, stream, headers: req.headers, body });
    void this.authorized(req, path, text).then((refused) => {
      if (refused !== null) {
        this.sendError(res, 403, refused);
        return;
      }
      if (FOUNDATION_MODELS.test(path)) {
        this.listFoundationModels(req, res);
        return;
      }
      if (req.method === 'POST' && invoke !== null) {
        const answer = bedrockInvokeEmbed(body, model);
        this.sendJson(res, answer.status, answer.json, { 'x-amzn-requestid': `req-emu-${++this.counter}`, ...answer.headers });
        return;
      }
      if (req.method !== 'POST' || route === null) {
        this.sendError(res, 404, { type: 'UnknownOperationException', message: `Unknown operation ${req.method} ${path}` });
        return;
      }
      const invalid = validate(body);
      if (invalid !== null) {
        this.sendError(res, 400, { type: 'ValidationException', message: invalid });
        return;
      }
      this.play(this.nextStep(), { model, stream, promptTokens: Math.max(1, Math.ceil(text.length / 4)), headers: req.headers }, res);
    });
  }

  private async authorized(req: IncomingMessage, path: string, text: string): Promise<{ type: string; message: string } | null> {
    if (this.apiKey !== undefined && req.headers.authorization === `Bearer ${this.apiKey}`) return null;
    const refused = await checkSignature(req.method ?? '', path, req.headers, text);
    if (refused !== null) return refused;
    if (this.expiredSessionToken !== undefined && req.headers['x-amz-security-token'] === this.expiredSessionToken) {
      return { type: 'ExpiredTokenException', message: 'The security token included in the request is expired' };
    }
    return null;
  }

  /** ListFoundationModels' answer (`{modelSummaries}`); a scripted `hang` or `status` fault plays instead. */
  private listFoundationModels(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') {
      this.sendError(res, 404, { type: 'UnknownOperationException', message: `Unknown operation ${req.method} /foundation-models` });
      return;
    }
    const step = this.nextStep();
    if (step?.fault === 'hang') return;
    if (step?.fault === 'status') {
      this.sendError(res, step.status, ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!, step.headers);
      return;
    }
    const summary = (modelId: string, providerName: string) => ({
      modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${modelId}`,
      modelId,
      modelName: modelId,
      providerName,
      inputModalities: ['TEXT'],
      outputModalities: ['TEXT'],
      responseStreamingSupported: true,
      customizationsSupported: [],
      inferenceTypesSupported: ['ON_DEMAND'],
      modelLifecycle: { status: 'ACTIVE' },
    });
    this.sendJson(
      res,
      200,
      { modelSummaries: [summary('anthropic.claude-sonnet-4-5-20250929-v1:0', 'Anthropic'), summary('amazon.nova-lite-v1:0', 'Amazon')] },
      { 'x-amzn-requestid': `req-emu-${++this.counter}` },
    );
  }

  private play(step: BedrockEmulatorStep | undefined, ex: Exchange, res: ServerResponse): void {
    const hello: BedrockAnswerStep = { text: `Hello from ${ex.model}` };
    if (step === undefined || step.fault === undefined) {
      this.respond(step ?? hello, ex, res);
      return;
    }
    switch (step.fault) {
      case 'status':
        if (step.body === undefined) this.sendError(res, step.status, ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!, step.headers);
        else this.sendBody(res, step.status, step.body, step.headers);
        return;
      case 'rate-limit':
        this.sendError(res, 429, ERROR_TYPES[429]!);
        return;
      case 'slow-first-byte':
        this.later(res, step.delayMs, () => this.respond(step.then ?? hello, ex, res));
        return;
      case 'reset-mid-stream': {
        const answer = step.then ?? { text: `Hello from ${ex.model}`, chunks: step.afterChunks + 3 };
        if (!ex.stream) {
          this.cutBody(res, JSON.stringify(converseAnswer(answer, ex.promptTokens, ++this.counter)));
          return;
        }
        res.writeHead(200, EVENTSTREAM_HEADERS);
        res.write(this.frames(answer, ex).slice(0, step.afterChunks).map(encodeFrame).reduce(concat, new Uint8Array()), () =>
          this.cut(res),
        );
        return;
      }
      case 'malformed-json':
        if (!ex.stream) this.sendBody(res, 200, '{"output":{"message":{"role":"assistant","content":[');
        else this.sendFrames(res, [encodeFrame(this.frames(hello, ex)[0]!), encodeRawEventFrame('contentBlockDelta', '{not json')]);
        return;
      case 'stream-error': {
        const error = step.error ?? { type: 'internalServerException', message: 'The server encountered an internal error.' };
        if (!ex.stream) {
          this.sendJson(res, 200, { message: error.message });
          return;
        }
        const before = this.frames(hello, ex).slice(0, step.afterChunks ?? 1);
        this.sendFrames(res, [
          ...before.map(encodeFrame),
          encodeFrame({ messageType: 'exception', type: error.type, payload: { message: error.message } }),
        ]);
        return;
      }
      case 'hang':
        return;
      case 'stall-after-headers':
        res.writeHead(200, ex.stream ? EVENTSTREAM_HEADERS : { 'content-type': 'application/json' });
        res.flushHeaders();
        if (ex.stream) for (const f of this.frames(hello, ex).slice(0, step.afterChunks ?? 0)) res.write(encodeFrame(f));
        return;
      case 'echo-headers': {
        const error = { message: echoedHeaders(ex.headers), received_headers: ex.headers };
        if (step.status !== 200)
          this.sendBody(res, step.status, error, { 'x-amzn-errortype': (ERROR_TYPES[step.status] ?? ERROR_TYPES[500]!).type });
        else if (!ex.stream) this.sendJson(res, 200, error);
        else
          this.sendFrames(res, [
            ...this.frames(hello, ex).slice(0, 2).map(encodeFrame),
            encodeFrame({ messageType: 'exception', type: 'internalServerException', payload: error }),
          ]);
        return;
      }
      case 'oversized-event': {
        // A frame whose prelude declares `chars` bytes, then bytes that never end it.
        res.writeHead(200, EVENTSTREAM_HEADERS);
        for (const f of this.frames(hello, ex).slice(0, step.afterChunks ?? 0)) res.write(encodeFrame(f));
        const prelude = Buffer.alloc(12);
        prelude.writeUInt32BE(Math.min(step.chars, 0xffffffff), 0);
        prelude.writeUInt32BE(0, 4);
        res.write(prelude);
        res.write(Buffer.alloc(1024 * 1024, 0x78));
        return;
      }
      default:
        throw new Error(`unknown emulator fault: ${JSON.stringify(step satisfies never)}`);
    }
  }

  private respond(step: BedrockAnswerStep, ex: Exchange, res: ServerResponse): void {
    if (!ex.stream)
      this.sendJson(res, 200, converseAnswer(step, ex.promptTokens, ++this.counter), { 'x-amzn-requestid': `req-emu-${this.counter}` });
    else this.sendFrames(res, this.frames(step, ex).map(encodeFrame));
  }

  private frames(step: BedrockAnswerStep, ex: Exchange): Frame[] {
    return converseStreamFrames(step, ex.promptTokens, ++this.counter);
  }

  private sendFrames(res: ServerResponse, frames: Uint8Array[]): void {
    res.writeHead(200, EVENTSTREAM_HEADERS);
    for (const f of frames) res.write(f);
    res.end();
  }

  private sendError(res: ServerResponse, status: number, error: { type: string; message: string }, headers?: Record<string, string>): void {
    this.sendJson(
      res,
      status,
      { message: error.message },
      {
        'x-amzn-errortype': `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        'x-amzn-requestid': `req-emu-${++this.counter}`,
        ...headers,
      },
    );
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return Buffer.concat([a, b]);
}

/** What the real API refuses, so tests of the gateway's side mean something. */
function validate(body: any): string | null {
  if (typeof body !== 'object' || body === null) return 'Malformed input request: the body is not JSON.';
  if ('model' in body || 'modelId' in body)
    return 'Malformed input request: extraneous key [model] is not permitted, please reformat your input and try again.';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  const usesTools = body.messages.some(
    (m: any) => Array.isArray(m?.content) && m.content.some((b: any) => b?.toolUse !== undefined || b?.toolResult !== undefined),
  );
  if (usesTools && body.toolConfig === undefined)
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  const thinking = body.additionalModelRequestFields?.thinking;
  if (thinking !== undefined && !(thinking.budget_tokens < (body.inferenceConfig?.maxTokens ?? 0))) {
    return 'The model returned the following errors: `max_tokens` must be greater than `thinking.budget_tokens`.';
  }
  return null;
}
