import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { AwsEventStreamParser } from '../eventstream/parse-aws-eventstream.ts';
import type { PickedCredential } from '../../catalog/credential-pool.ts';
import { prematureClose, readAllText } from './read-all-text.ts';
import { armDeadline, Deadline, disarmDeadline } from '../../runtime/deadlines.ts';
import { swapCredential } from './swap-credential.ts';
import { callInParts, splitForVendor } from './call-upstream-task.ts';
import { SseEventTooLargeError, SseParser } from '../sse/parse-sse.ts';
import type { HttpProviderAdapter, PartSink, UpstreamRequest, UpstreamTaskRequest } from '../types.ts';
import type { TaskRequest } from '../../canonical/task.ts';
import type { TracedAttempt, UpstreamClient, UpstreamResponse } from './upstream-client.ts';
import {
  attemptTimeoutError,
  connectError,
  credentialsError,
  oversizedEventError,
  providerFailure,
  readFailedError,
} from './upstream-error.ts';

// Transport of one attempt to an HTTP upstream: the adapter encodes, undici carries, the
// body is read (SSE framed, or JSON parsed whole, or an error body captured up to a cap),
// and the adapter decodes it into parts. Routing decides what to try and what a failure
// means; this only carries one request and says how it ended.

/** An error body is read up to this many characters. */
const MAX_ERROR_BODY = 64 * 1024;

/** A task's answer (images as base64, audio) is read up to this many bytes. */
const MAX_TASK_BODY = 128 * 1024 * 1024;

/** The attempt the transport serves: where parts go and where the outcome is kept. */
export interface UpstreamAttempt {
  /** Receives the decoded parts; an `error` part fails the attempt. */
  readonly emit: PartSink;
  /** The attempt's failure, once it has one (the first wins). */
  readonly error: GatewayError | null;
  /** The upstream's HTTP status, 0 until the headers arrive. */
  status: number;
  /** Set when the adapter could not encode the request for this endpoint: nothing was sent. */
  notSent: boolean;
  /** The upstream's response headers, once they arrived (a credential pool reads its rate-limit answers). */
  upstreamHeaders?: Record<string, string | string[] | undefined>;
  /**
   * Milliseconds spent waiting on the upstream (`performance.now()`): from handing the
   * request to the HTTP client to its last byte read, or, for a stream, to the arrival of
   * the chunk that began the answer for the client (its end, when none did). What the
   * gateway does before and after (encoding, credentials, parsing, decoding) is not in it:
   * that is the gateway's own time (the overhead histogram, generation-route.ts). 0 when
   * nothing was sent.
   */
  waitedMs: number;
  fail(error: GatewayError): void;
  /** True once the answer has begun for the client (its first content part, or any byte sent). */
  readonly answerBegun: boolean;
  /** A promise while the client is not taking data (backpressure), else null. */
  waitForDrain(): Promise<void> | null;
}

/**
 * Sends `req` to `endpoint` through `adapter` and feeds the answer into `attempt`, which
 * holds how it ended. The answer must begin within `timeoutMs` of sending, headers
 * included (undici's headersTimeout covers the headers alone; its bodyTimeout is long): a
 * stream begins with its first content part (or whatever reached the client first), a
 * non-streamed answer with the first byte of its body. Past that the attempt fails as a
 * timeout and its body is destroyed. Never throws.
 */
export async function callUpstream(
  client: UpstreamClient,
  adapter: HttpProviderAdapter,
  endpoint: Endpoint,
  req: CanonicalRequest,
  attempt: UpstreamAttempt,
  signal: AbortSignal,
  timeoutMs: number,
  traced?: TracedAttempt,
  credential?: PickedCredential,
): Promise<void> {
  // More inputs than the vendor takes in one call: one call per part, joined (call-upstream-task.ts).
  const parts = splitForVendor(adapter, endpoint, req);
  if (parts !== null) {
    return callInParts(
      parts,
      (part, partAttempt, partSignal) =>
        callUpstream(client, adapter, endpoint, part, partAttempt, partSignal, timeoutMs, traced, credential),
      attempt,
      signal,
    );
  }
  let upstreamReq: UpstreamRequest | UpstreamTaskRequest;
  try {
    upstreamReq = req.task === undefined ? adapter.encodeRequest(req, endpoint) : encodeTask(adapter, req, req.task, endpoint);
  } catch (err) {
    // This endpoint cannot carry the request (e.g. audio to a provider without audio):
    // another endpoint of the plan may, so the failure moves on rather than ends routing.
    attempt.notSent = true;
    attempt.fail(providerFailure(err, endpoint));
    return;
  }
  // A pooled credential: this attempt's pick replaces the key the adapter wrote.
  if (credential !== undefined) upstreamReq = { ...upstreamReq, headers: swapCredential(upstreamReq.headers, endpoint, credential.key) };
  // The deadline runs from here: getting credentials (a token endpoint) counts against it.
  const exchange = new Exchange(adapter, endpoint, attempt, signal, timeoutMs);
  if (adapter.authorize !== undefined) {
    const signable = upstreamReq;
    if (typeof signable.body !== 'string') {
      exchange.disarm();
      attempt.notSent = true;
      attempt.fail(
        providerFailure(new GatewayError('provider_error', `Provider "${endpoint.provider.id}" cannot be sent a file upload.`), endpoint),
      );
      return;
    }
    // Credentials that never come (a hung credential process or token endpoint) must not
    // hold the attempt past its deadline, nor past the client's leaving.
    const authorized = await Promise.race([
      adapter.authorize(signable as UpstreamRequest, endpoint).then(
        (r) => ({ r }),
        (err: unknown) => ({ err }),
      ),
      exchange.interrupted(),
    ]);
    if (authorized === null) {
      exchange.disarm();
      if (attempt.error === null) attempt.fail(connectError(signal.reason ?? new Error('aborted'), endpoint));
      return;
    }
    if ('err' in authorized) {
      exchange.disarm();
      attempt.fail(credentialsError(authorized.err, endpoint));
      return;
    }
    upstreamReq = authorized.r;
  }
  exchange.sentAt = performance.now();
  try {
    exchange.res = await client.send(upstreamReq, signal, timeoutMs, traced);
  } catch (err) {
    exchange.received(performance.now());
    exchange.disarm();
    attempt.fail(connectError(err, endpoint));
    return;
  }
  await exchange.read(req.stream, req.task);
}

/** A task's upstream call, by the adapter's task codec; an adapter without one carries chat only. */
function encodeTask(adapter: HttpProviderAdapter, req: CanonicalRequest, task: TaskRequest, endpoint: Endpoint): UpstreamTaskRequest {
  const codec = adapter.tasks;
  if (codec === undefined || !codec.kindsFor(endpoint.provider).has(task.kind)) {
    throw new GatewayError('provider_error', `Provider "${endpoint.provider.id}" (${adapter.kind}) does not serve ${task.kind} requests.`);
  }
  return codec.encode(req, task, endpoint);
}

/** One request in flight: its answer deadline (on the shared timer of its duration) and the reading of its body. */
class Exchange extends Deadline {
  res: UpstreamResponse | null = null;
  /** When the request was handed to the HTTP client (`performance.now()`). */
  sentAt = 0;
  /** Still waiting on the upstream: its last byte (a stream: the chunk that begins the answer) has not come. */
  private waiting = true;
  /** A non-streamed body's first byte arrived: the answer has begun. */
  private bodyStarted = false;
  private readonly timeoutMs: number;
  private readonly adapter: HttpProviderAdapter;
  private readonly endpoint: Endpoint;
  private readonly attempt: UpstreamAttempt;
  private readonly signal: AbortSignal;

  constructor(adapter: HttpProviderAdapter, endpoint: Endpoint, attempt: UpstreamAttempt, signal: AbortSignal, timeoutMs: number) {
    super();
    this.adapter = adapter;
    this.endpoint = endpoint;
    this.attempt = attempt;
    this.signal = signal;
    this.timeoutMs = timeoutMs;
    armDeadline(this, timeoutMs);
  }

  /** The wait on the upstream ended at `at` (the first call counts). */
  received(at: number): void {
    if (!this.waiting) return;
    this.waiting = false;
    this.attempt.waitedMs = at - this.sentAt;
  }

  disarm(): void {
    disarmDeadline(this, this.timeoutMs);
    // Only an attempt that waited for credentials listens (no listener, nor its removal, per request otherwise).
    if (this.onAbort !== null) this.signal.removeEventListener('abort', this.onAbort);
  }

  /** Resolves with null once the deadline failed the attempt or the request was aborted (never otherwise). */
  interrupted(): Promise<null> {
    if (this.signal.aborted || this.attempt.error !== null) return Promise.resolve(null);
    return new Promise((resolve) => {
      const interrupt = (): void => resolve(null);
      this.interrupt = interrupt;
      this.onAbort = interrupt;
      this.signal.addEventListener('abort', interrupt, { once: true });
    });
  }

  private interrupt: (() => void) | null = null;
  private onAbort: (() => void) | null = null;

  protected expire(): void {
    const attempt = this.attempt;
    if (this.bodyStarted || attempt.answerBegun || attempt.error !== null) return;
    attempt.fail(attemptTimeoutError(this.endpoint, this.timeoutMs));
    this.interrupt?.();
    if (this.res !== null && !this.res.body.destroyed) this.res.body.destroy();
  }

  /** Reads the answer whose headers arrived; destroys the body (ending the request) when it failed. */
  async read(streamed: boolean, task: TaskRequest | undefined): Promise<void> {
    const res = this.res!;
    const attempt = this.attempt;
    attempt.status = res.status;
    attempt.upstreamHeaders = res.headers;
    try {
      if (attempt.error !== null) return; // the deadline passed as the headers arrived
      if (res.status >= 400) await this.readError(res);
      else if (task !== undefined) await this.readTask(res, task);
      else if (streamed) await this.readStream(res);
      // The whole body, then decoded: one promise (the body's), not a function's layer around it (issue 29).
      else this.decodeWhole(await readAllText(res.body, () => (this.bodyStarted = true)));
    } catch (err) {
      this.failRead(err);
    } finally {
      // Failed, cut or aborted before the answer ended: the wait lasted until now.
      if (this.waiting) this.received(performance.now());
      this.disarm();
      if (!res.body.destroyed && (attempt.error !== null || this.signal.aborted)) res.body.destroy();
    }
  }

  private async readError(res: UpstreamResponse): Promise<void> {
    const text = await readBounded(res.body, MAX_ERROR_BODY);
    this.received(performance.now());
    this.attempt.fail(this.adapter.decodeError(res.status, text, res.headers, this.endpoint));
  }

  /**
   * A stream's events as they arrive, read with the body's `readable` event rather than an
   * async iterator (whose set-up, end-of-stream watcher and promise per read cost ~2 KB a
   * streamed answer, issue 29). Like the iterator, each read takes everything buffered, so
   * the events of one upstream read go to the client in one write; reading stops while the
   * client is not taking data (the body buffers, then undici stops reading the socket), and
   * once the attempt failed (read() destroys the body). Rejects as the iterator would: the
   * parser's or the decoder's error, the body's error, or its close before its end.
   */
  private readStream(res: UpstreamResponse): Promise<void> {
    const attempt = this.attempt;
    const decoder = this.adapter.createStreamDecoder(this.endpoint, attempt.emit);
    const binary = this.adapter.streamFraming === 'aws-eventstream';
    const parser: { push(chunk: never): void; end(): void } = binary
      ? new AwsEventStreamParser((ev) => decoder.onEvent(ev))
      : new SseParser((ev) => decoder.onEvent(ev));
    const body = res.body;
    if (!binary) body.setEncoding('utf8');
    // Destroyed before it was read (an abort between the headers and here): its events are past.
    if (body.destroyed) return Promise.reject(body.errored ?? prematureClose());
    return new Promise((resolve, reject) => {
      let waitingForClient = false;
      const done = (err?: Error): void => {
        body.off('readable', onReadable);
        body.off('end', onEnd);
        body.off('error', done);
        body.off('close', onClose);
        if (err === undefined) resolve();
        else reject(err);
      };
      const onReadable = (): void => {
        try {
          let chunk: string | Buffer | null;
          while (!waitingForClient && (chunk = body.read() as string | Buffer | null) !== null) {
            if (this.waiting) {
              // Until the answer begins, each read may end the wait (one clock read each).
              const at = performance.now();
              parser.push(chunk as never);
              if (attempt.answerBegun) this.received(at);
            } else {
              parser.push(chunk as never);
            }
            if (attempt.error !== null) return done();
            const drain = attempt.waitForDrain();
            if (drain !== null) {
              waitingForClient = true;
              drain.then(() => {
                waitingForClient = false;
                onReadable();
              }, done);
            }
          }
        } catch (err) {
          done(err as Error);
        }
      };
      const onEnd = (): void => {
        try {
          if (attempt.error === null) {
            parser.end();
            decoder.end();
          }
          done();
        } catch (err) {
          done(err as Error);
        }
      };
      const onClose = (): void => done(prematureClose());
      body.on('readable', onReadable);
      body.on('end', onEnd);
      body.on('error', done);
      body.on('close', onClose);
    });
  }

  /** A non-streamed answer's whole body (its first byte set `bodyStarted`), decoded into parts. */
  private decodeWhole(text: string): void {
    this.received(performance.now());
    if (this.attempt.error !== null) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.attempt.fail(
        new GatewayError('provider_error', 'The provider returned a body that is not valid JSON.', {
          metadata: { provider_name: this.endpoint.provider.id, raw: text.slice(0, 2000) },
        }),
      );
      return;
    }
    this.adapter.decodeResponse(json, this.endpoint, this.attempt.emit);
  }

  /** A task's answer, whole and as bytes (speech is audio), up to MAX_TASK_BODY; or audio handed over as it arrives. */
  private async readTask(res: UpstreamResponse, task: TaskRequest): Promise<void> {
    if (this.adapter.tasks!.streamsAudio?.(task, res.headers) === true) return this.readAudio(res);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      this.bodyStarted = true;
      size += (chunk as Buffer).length;
      if (size > MAX_TASK_BODY) {
        this.attempt.fail(
          new GatewayError('provider_error', `The provider's answer is larger than ${MAX_TASK_BODY} bytes.`, {
            metadata: { provider_name: this.endpoint.provider.id },
          }),
        );
        return;
      }
      chunks.push(chunk as Buffer);
    }
    this.received(performance.now());
    if (this.attempt.error !== null) return;
    this.adapter.tasks!.decode(task, Buffer.concat(chunks, size), res.headers, this.endpoint, this.attempt.emit);
  }

  /** Audio as it arrives: each chunk an `audio-delta` part, the reading paused while the client is not taking data. */
  private async readAudio(res: UpstreamResponse): Promise<void> {
    const attempt = this.attempt;
    const format = String(res.headers['content-type']);
    let size = 0;
    for await (const chunk of res.body) {
      const at = performance.now();
      size += (chunk as Buffer).length;
      if (size > MAX_TASK_BODY) {
        attempt.fail(
          new GatewayError('provider_error', `The provider's answer is larger than ${MAX_TASK_BODY} bytes.`, {
            metadata: { provider_name: this.endpoint.provider.id },
          }),
        );
        return;
      }
      attempt.emit({ type: 'audio-delta', data: (chunk as Buffer).toString('base64'), format });
      if (attempt.answerBegun) this.received(at);
      if (attempt.error !== null) return;
      const drain = attempt.waitForDrain();
      if (drain !== null) await drain;
    }
    this.received(performance.now());
    if (attempt.error !== null) return;
    if (size === 0) {
      attempt.fail(
        new GatewayError('provider_error', 'The provider returned an answer this gateway cannot read: the audio is empty.', {
          metadata: { provider_name: this.endpoint.provider.id },
        }),
      );
      return;
    }
    attempt.emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
  }

  /** Reading the body threw: an oversized SSE event, or the connection broke (not by our abort). */
  private failRead(err: unknown): void {
    if (err instanceof SseEventTooLargeError) {
      this.attempt.fail(oversizedEventError(this.endpoint, err.limit, this.attempt.status));
    } else if (!this.signal.aborted) {
      this.attempt.fail(readFailedError(err, this.endpoint));
    }
  }
}

async function readBounded(body: AsyncIterable<Buffer | string>, max: number): Promise<string> {
  let out = '';
  for await (const chunk of body) {
    out += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}
