import type { CanonicalRequest } from '../../canonical/request.ts';
import { estimateRequestTokens } from '../../canonical/estimate-tokens.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { DialectStreamEncoder, ResponseMeta } from '../front-dialect.ts';
import { encodeGeminiFinishReason } from './encode-gemini-finish-reason.ts';
import { audioPart, functionCallPart, imagePart, showsThoughts, thoughtPart, type GeminiAnswerPart } from './encode-gemini-parts.ts';
import { encodeGeminiUsage } from './encode-gemini-usage.ts';
import { geminiErrorBody } from './render-gemini-error.ts';

// Stream parts → Gemini's streamGenerateContent: a sequence of GenerateContentResponse
// chunks, each with one candidate holding the parts that arrived since the last. Text and
// thoughts go out as they come; a function call goes out whole (Gemini never splits one),
// when its arguments are complete; the last chunk has the finish reason and
// `usageMetadata` (with the cost in USD when known). Every chunk names `modelVersion` and
// `responseId` (the generation id).
//
// Two framings: with `?alt=sse`, SSE (`data: <chunk>` events, what the SDKs and Gemini CLI
// ask for); without, one JSON array written as it grows (`[`, chunks separated by `,`,
// `]`). A failure after the stream started is a last chunk `{error: {code, message,
// status}}` (what the SDKs look for in-stream), and the stream ends.

export type GeminiFraming = 'sse' | 'json-array';

interface OpenCall {
  id: string;
  name: string;
  args: string;
  signature: string | undefined;
}

export class GeminiStreamEncoder implements DialectStreamEncoder {
  private readonly framing: GeminiFraming;
  private readonly req: CanonicalRequest;
  private readonly meta: ResponseMeta;
  private readonly show: boolean;
  /** `,"modelVersion":...,"responseId":...}`: the same tail on every chunk. */
  private readonly tail: string;
  private readonly calls = new Map<number, OpenCall>();
  private finish: FinishReason | null = null;
  private usage: Usage | null = null;
  private started = false;
  private chunks = 0;
  private failed = false;

  constructor(meta: ResponseMeta, req: CanonicalRequest, framing: GeminiFraming) {
    this.meta = meta;
    this.req = req;
    this.framing = framing;
    this.show = showsThoughts(req);
    this.tail = ',"modelVersion":' + JSON.stringify(meta.model) + ',"responseId":' + JSON.stringify(meta.id) + '}';
  }

  start(): string {
    if (this.started) return '';
    this.started = true;
    return this.framing === 'json-array' ? '[' : '';
  }

  push(part: StreamPart): string {
    if (this.failed) return '';
    switch (part.type) {
      case 'text-delta':
        if (part.text.length === 0) return '';
        return this.frame(
          CANDIDATE_HEAD +
            '{"text":' +
            (part.plain === true ? '"' + part.text + '"' : JSON.stringify(part.text)) +
            '}' +
            CANDIDATE_TAIL +
            this.tail,
        );
      case 'reasoning-delta': {
        if (!this.show || part.text.length === 0) return '';
        return this.parts([{ text: part.text, thought: true }]);
      }
      case 'reasoning-signature': {
        const thought = thoughtPart('', part.signature, this.show);
        return thought === null ? '' : this.parts([thought]);
      }
      case 'reasoning-redacted':
        return '';
      case 'tool-call-start':
        this.calls.set(part.index, { id: part.id, name: part.name, args: '', signature: part.signature });
        return '';
      case 'tool-call-delta': {
        const call = this.calls.get(part.index);
        if (call !== undefined) call.args += part.argumentsDelta;
        return '';
      }
      case 'tool-call-end': {
        const call = this.calls.get(part.index);
        if (call === undefined) return '';
        this.calls.delete(part.index);
        return this.parts([functionCallPart(call.id, call.name, call.args, call.signature)]);
      }
      case 'image-output':
        return this.parts([imagePart(part.url)]);
      case 'audio-delta':
        return part.data === undefined || part.data.length === 0 ? '' : this.parts([audioPart(part.data, part.format)]);
      case 'finish':
        this.finish = part.reason;
        return '';
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'error':
        return this.error(part.error);
      case 'stream-start':
      // Task answers never stream (their routes are not chat dialects).
      case 'task-result':
      // Gemini's API names no MCP servers: the gateway runs none for it.
      case 'server-tool-list':
      case 'server-tool-call':
        return '';
      default:
        return assertNever(part);
    }
  }

  /** The last chunk: calls still open, the finish reason and the usage; then the array's `]`. */
  end(cost?: number): string {
    if (this.failed) return '';
    const parts: GeminiAnswerPart[] = [];
    for (const call of this.calls.values()) parts.push(functionCallPart(call.id, call.name, call.args, call.signature));
    this.calls.clear();
    if (parts.length === 0) parts.push({ text: '' });
    const estimate = this.usage === null ? estimateRequestTokens(this.req) : 0;
    const last = {
      candidates: [{ content: { role: 'model', parts }, finishReason: encodeGeminiFinishReason(this.finish), index: 0 }],
      usageMetadata: encodeGeminiUsage(this.usage, estimate, cost),
      modelVersion: this.meta.model,
      responseId: this.meta.id,
    };
    return this.start() + this.frame(JSON.stringify(last)) + (this.framing === 'json-array' ? ']' : '');
  }

  /** `{error: {...}}` as the last chunk; works before `start()` too, and only the first error is sent. */
  error(err: GatewayError): string {
    if (this.failed) return '';
    this.failed = true;
    return this.start() + this.frame(JSON.stringify(geminiErrorBody(err))) + (this.framing === 'json-array' ? ']' : '');
  }

  private parts(parts: GeminiAnswerPart[]): string {
    return this.frame(CANDIDATE_HEAD + JSON.stringify(parts).slice(1, -1) + CANDIDATE_TAIL + this.tail);
  }

  private frame(json: string): string {
    if (this.framing === 'sse') return 'data: ' + json + '\n\n';
    return (this.chunks++ === 0 ? '' : ',\r\n') + json;
  }
}

/** A chunk up to its parts' list (`[` opened); CANDIDATE_TAIL closes the list and the candidate. */
const CANDIDATE_HEAD = '{"candidates":[{"content":{"role":"model","parts":[';
const CANDIDATE_TAIL = ']},"index":0}]';
