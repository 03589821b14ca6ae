// What the upstream emulators share beneath their wire formats: an HTTP server on loopback
// that records what it received and plays scripted steps in order, the faults every vendor
// can show alike (an answer that starts late, a connection cut on purpose, one that never
// comes, one that stalls after its headers), and a count of the answers the client walked
// away from. Each emulator keeps only its wire: routes, answer shapes, error bodies.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it did not parse); `any` so tests can walk it. */
  body: any;
}

/** What every emulator offers a test. */
export interface UpstreamEmulator<Step, Recorded extends RecordedRequest = RecordedRequest> {
  readonly baseUrl: string;
  readonly requests: Recorded[];
  /** Responses the client walked away from before they were complete (deliberate resets excluded). */
  readonly closedEarly: number;
  /** Resolves once `count` responses were walked away from. */
  whenClosedEarly(count: number): Promise<void>;
  /** Resolves as soon as `count` requests have been recorded. */
  whenRequests(count: number): Promise<void>;
  enqueue(...steps: Step[]): void;
  /** Forget recorded requests, scripted steps and the closedEarly count. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * The faults every emulator plays, each in its vendor's shapes: `Answer` is the emulator's
 * answer step, `ErrorBody` what its `stream-error` carries.
 */
export type EmulatorFault<Answer, ErrorBody> =
  /** An error answer: `body` as given (text, or JSON), else the vendor's error for the status. */
  | { fault: 'status'; status: number; body?: string | Record<string, unknown>; headers?: Record<string, string> }
  /** A 429 in the vendor's shape, asking to retry after `retryAfterSeconds`. */
  | { fault: 'rate-limit'; retryAfterSeconds: number }
  /** The answer (`then`, else the default one) after `delayMs`. */
  | { fault: 'slow-first-byte'; delayMs: number; then?: Answer }
  /** Destroys the socket after `afterChunks` SSE events (non-stream: after part of the body). */
  | { fault: 'reset-mid-stream'; afterChunks: number; then?: Answer }
  /** Non-stream: a 200 whose body is not JSON. Stream: a broken `data:` line after the first event. */
  | { fault: 'malformed-json' }
  /** Stream: the vendor's in-stream error after `afterChunks` events (default 1). Non-stream: a 200 holding the error. */
  | { fault: 'stream-error'; afterChunks?: number; error?: ErrorBody }
  /** Never answers (for timeouts). */
  | { fault: 'hang' }
  /**
   * A 200's status line and headers (SSE when streaming), then nothing, the connection held
   * open: an upstream that stalls after answering, which only a first-content deadline catches.
   * Streamed, the first `afterChunks` events of the default answer go out before the stall
   * (default 0).
   */
  | { fault: 'stall-after-headers'; afterChunks?: number }
  /**
   * An upstream that repeats the request's headers (the gateway's credentials among them) in
   * its error: the vendor's error for `status`, its message and a `received_headers` field
   * holding them. With status 200: streamed, the vendor's in-stream error after the first
   * event; not streamed, a 200 holding the error.
   */
  | { fault: 'echo-headers'; status: number }
  /**
   * Stream: the first `afterChunks` events of the default answer (default 0), then one `data:`
   * line of `chars` characters that never ends, written as fast as the client takes it.
   */
  | { fault: 'oversized-event'; chars: number; afterChunks?: number };

/** The text an `echo-headers` error carries: every request header, credentials included. */
export function echoedHeaders(headers: IncomingHttpHeaders): string {
  return `Request rejected; received headers: ${JSON.stringify(headers)}`;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;
const JSON_TYPE = 'application/json';

export interface EmulatorHttpOptions {
  /** Keep every request in `requests` (default true; benchmarks turn it off). */
  record?: boolean;
  /** The content-type of JSON answers (default `application/json`). */
  jsonType?: string;
}

export abstract class EmulatorHttp<Step, Recorded extends RecordedRequest = RecordedRequest> {
  /** `http://127.0.0.1:<port>`, once listening. */
  origin = '';
  readonly requests: Recorded[] = [];
  closedEarly = 0;
  private closedEarlyWaiters: Array<{ count: number; resolve: () => void }> = [];
  private arrivalWaiters: Array<{ count: number; resolve: () => void }> = [];
  protected readonly jsonType: string;
  private readonly recording: boolean;
  private readonly steps: Step[] = [];
  private readonly server: Server;
  /** Responses cut on purpose, so they do not count as closed early. */
  private readonly resets = new WeakSet<ServerResponse>();

  constructor(options: EmulatorHttpOptions = {}) {
    this.recording = options.record ?? true;
    this.jsonType = options.jsonType ?? JSON_TYPE;
    this.server = createServer((req, res) => {
      res.on('close', () => {
        if (!res.writableFinished && !this.resets.has(res)) {
          this.closedEarly++;
          this.closedEarlyWaiters = this.closedEarlyWaiters.filter((w) => (this.closedEarly >= w.count ? (w.resolve(), false) : true));
        }
      });
      readBody(req, (text) => this.answer(req, res, text, parseBody(text)));
    });
    // Clients (and benchmarks) reuse connections; do not close them under their feet.
    this.server.keepAliveTimeout = 60_000;
  }

  async listen(): Promise<void> {
    this.origin = await listenOnLoopback(this.server);
  }

  enqueue(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  /** Resolves once `count` responses were walked away from (see closedEarly). */
  whenClosedEarly(count: number): Promise<void> {
    if (this.closedEarly >= count) return Promise.resolve();
    return new Promise((resolve) => this.closedEarlyWaiters.push({ count, resolve }));
  }

  /** Resolves as soon as `count` requests have been recorded (the moment the last one arrives). */
  whenRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push({ count, resolve }));
  }

  reset(): void {
    this.requests.length = 0;
    this.steps.length = 0;
    this.closedEarly = 0;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** Answers one request; `body` is its JSON, or `text` when that did not parse. */
  protected abstract answer(req: IncomingMessage, res: ServerResponse, text: string, body: any): void;

  protected record(entry: Recorded): void {
    if (!this.recording) return;
    this.requests.push(entry);
    if (this.arrivalWaiters.length > 0)
      this.arrivalWaiters = this.arrivalWaiters.filter((w) => (this.requests.length >= w.count ? (w.resolve(), false) : true));
  }

  protected nextStep(): Step | undefined {
    return this.steps.shift();
  }

  protected sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
    sendJson(res, status, value, this.jsonType, headers);
  }

  /** A scripted answer body as given: text as is, anything else as JSON. */
  protected sendBody(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
    res.writeHead(status, { 'content-type': this.jsonType, ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** SSE events, at once or `delayMs` apart. */
  protected sendEvents(res: ServerResponse, status: number, events: string[], delayMs = 0): void {
    res.writeHead(status, SSE_HEADERS);
    if (delayMs <= 0) res.end(events.join(''));
    else writePaced(res, events, delayMs);
  }

  /** The `slow-first-byte` fault: `respond` runs after `delayMs`, unless the client left first. */
  protected later(res: ServerResponse, delayMs: number, respond: () => void): void {
    const timer = setTimeout(respond, delayMs);
    res.on('close', () => clearTimeout(timer));
  }

  /** The `stall-after-headers` fault: the headers (and `events`) go out at once, the rest never comes. */
  protected stallAfterHeaders(res: ServerResponse, stream: boolean, events: string[] = []): void {
    res.writeHead(200, stream ? SSE_HEADERS : { 'content-type': this.jsonType });
    res.flushHeaders();
    if (events.length > 0) res.write(events.join(''));
  }

  /** The `reset-mid-stream` fault, not streamed: half of the JSON body, then the connection cut. */
  protected cutBody(res: ServerResponse, body: string): void {
    res.writeHead(200, { 'content-type': this.jsonType, 'content-length': Buffer.byteLength(body) });
    res.write(body.slice(0, body.length >> 1), () => this.cut(res));
  }

  /** The `reset-mid-stream` fault, streamed: the events sent so far, then the connection cut. */
  protected cutEvents(res: ServerResponse, events: string[]): void {
    res.writeHead(200, SSE_HEADERS);
    res.write(events.join(''), () => this.cut(res));
  }

  /** The `oversized-event` fault: `events`, then a `data:` line of `chars` characters (1 MiB writes that wait for the client), left open. */
  protected sendOversizedEvent(res: ServerResponse, events: string[], chars: number): void {
    res.writeHead(200, SSE_HEADERS);
    res.write(events.join('') + 'data: "');
    const piece = 'x'.repeat(1024 * 1024);
    let left = chars;
    const next = (): void => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (!res.write(n === piece.length ? piece : piece.slice(0, n))) {
          res.once('drain', next);
          return;
        }
      }
      // Never ended: the line stays open until the client drops the connection.
    };
    next();
  }

  /** Destroys the connection on purpose (not counted as closed early). */
  protected cut(res: ServerResponse): void {
    this.resets.add(res);
    res.destroy();
  }
}

/** Calls `onBody` with the whole request body as text. */
export function readBody(req: IncomingMessage, onBody: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => onBody(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
}

/** The body as JSON, or its text when it does not parse. */
export function parseBody(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Resolves with `http://127.0.0.1:<port>` once the server listens on a free port. */
export function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Hung and kept-alive connections would hold close() open forever.
    server.closeAllConnections();
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  contentType = JSON_TYPE,
  headers?: Record<string, string>,
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
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
