import type { IncomingHttpHeaders } from 'node:http';
import type { KeyHeaders } from '../auth/authenticate.ts';
import type { DialectName } from '../canonical/dialect-name.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { CanonicalResponse } from '../canonical/response.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { Usage } from '../canonical/usage.ts';
import type { GatewayError } from '../errors/gateway-error.ts';

export type { DialectName } from '../canonical/dialect-name.ts';

/** What every encoder of an answer needs to know beyond the answer itself. */
export interface ResponseMeta {
  /** The generation id, used as the response id. */
  id: string;
  /** Unix seconds. */
  created: number;
  /** Catalog id of the model that served. */
  model: string;
  provider: string;
  /** The client asked to reason without seeing the reasoning. */
  excludeReasoning: boolean;
  /** USD, when known. */
  cost?: number;
  /** The account the key belongs to (answers that keep something for it: image URLs). */
  accountId?: string;
  /** Where the client reached the gateway (`https://host[:port][/base path]`), for answers that link back to it; whole answers only. */
  publicBase?: string;
}

/** Turns stream parts into the SSE text of one dialect. Every method returns text to write ('' for none). */
export interface DialectStreamEncoder {
  /**
   * The upstream's usage, when it arrived before the answer started (the route holds it
   * until then): given before `start()`, so that a dialect announcing usage up front (the
   * messages `message_start`) can say the upstream's figures instead of an estimate. The
   * held part is still pushed after `start()`. Optional: other dialects ignore it.
   */
  primeUsage?(usage: Usage): void;
  /** Sent once, before the first part. */
  start(): string;
  push(part: StreamPart): string;
  /** The answer is complete; cost in USD when known. */
  end(cost?: number): string;
  /** A failure after the stream started (or after a keep-alive opened it: `start()` may not have run); the stream ends after it. */
  error(err: GatewayError): string;
}

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A client dialect as the server sees it: how to read the key and the request, and how
 * to write answers and errors. The generation route is one handler parameterized by this.
 */
export interface FrontDialect {
  readonly name: DialectName;
  /**
   * The raw API key, if any: from the headers, or (Gemini's `?key=`) the request's query
   * string, `url` being the request's path and query as received.
   */
  readKey: (headers: IncomingHttpHeaders, url?: string) => string | undefined;
  /** The headers `readKey` reads, named in a 401 for a missing or unknown key. Default `bearer`. */
  readonly keyHeaders?: KeyHeaders;
  decode(body: unknown): CanonicalRequest;
  /** `req` is the decoded request, for answers that echo its settings (a Response object repeats `metadata`, `tools`, ...). */
  encodeResponse(resp: CanonicalResponse, meta: ResponseMeta, req: CanonicalRequest): unknown;
  /** `req` is the decoded request, for encoders that announce something of it up front (an input estimate). */
  createStreamEncoder(meta: ResponseMeta, req: CanonicalRequest): DialectStreamEncoder;
  renderError(err: GatewayError): RenderedError;
  /**
   * The content type of a streamed answer (default `text/event-stream`): Gemini's
   * streamGenerateContent without `alt=sse` streams one JSON array.
   */
  readonly streamContentType?: string;
  /**
   * Keep-alive for streams: when nothing was written for `intervalMs`, write `text` (a
   * whole SSE event or comment). Before the answer starts this sends the response headers
   * early; it does not commit the stream, so routing may still fail over, and a failure
   * then is written in-stream with the encoder's `error()`. Absent: nothing is written
   * until the answer starts.
   */
  readonly keepAlive?: KeepAlive;
  /**
   * The answer is a file sent as its provider's pieces arrive (speech audio), the last held
   * until settlement (server/binary-answer.ts): its content type when the provider names
   * none. Absent: the answer is encoded whole by `encodeResponse`.
   */
  readonly binaryAnswer?: (req: CanonicalRequest) => string;
}

export interface KeepAlive {
  intervalMs: number;
  text: string;
}

/**
 * An answer that is not JSON (speech audio, a transcript as text, srt or vtt): a dialect's
 * `encodeResponse` returns it and the route sends its bytes with its content type.
 */
export class RawAnswer {
  readonly contentType: string;
  readonly body: Buffer | string;

  constructor(contentType: string, body: Buffer | string) {
    this.contentType = contentType;
    this.body = body;
  }
}

/** Task routes (embeddings, images, audio) never stream: their decoders never set `stream`. */
export function taskFrontStreamEncoder(): DialectStreamEncoder {
  throw new Error('a task request never streams');
}
