import type { CanonicalRequest } from '../canonical/request.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamClient, UpstreamResponse } from '../providers/http/upstream-client.ts';
import { SseEventTooLargeError, SseParser } from '../providers/sse/parse-sse.ts';
import { oversizedEventError } from '../providers/http/upstream-error.ts';
import type { HttpProviderAdapter, LocalProviderAdapter, ProviderAdapter } from '../providers/types.ts';
import type { AttemptGate, AttemptRecord, PlannedAttempt } from './attempt.ts';

export type { AttemptGate } from './attempt.ts';
import { AttemptRun } from './attempt-run.ts';
import { CircuitBreakers } from './circuit-breaker.ts';
import type { HealthStore } from './health/health-store.ts';
import { InProcessHealthStore } from './health/in-process-health-store.ts';
import { observeAttempt } from './observe-attempt.ts';
import { retriesSameEndpoint, RetryPolicy } from './retry-policy.ts';

/** Where an answer's parts go: the dialect's encoder, streaming or folding. */
export interface ExecutionSink {
  /** True once anything of the answer has reached the client: from then on, no failover. */
  readonly committed: boolean;
  /** An attempt starts: forget what a failed one left. Only called while not committed. */
  beginAttempt(attempt: PlannedAttempt): void;
  part(part: StreamPart): void;
  /** A promise while the client is not taking data (backpressure), else null. */
  waitForDrain(): Promise<void> | null;
}

export interface ExecutionResult {
  /** The attempt that produced the answer, or null when none did. */
  served: PlannedAttempt | null;
  attempts: AttemptRecord[];
  /** Set when the request failed: before the answer, or mid-stream. */
  error: GatewayError | null;
  /** The client went away; the upstream request was aborted. */
  cancelled: boolean;
  /** Milliseconds from the start of execution to the first content part. */
  firstTokenMs: number | null;
}

export interface ExecutorDeps {
  adapters: ReadonlyMap<string, ProviderAdapter>;
  client: UpstreamClient;
  now?: () => number;
  health?: HealthStore;
  breakers?: CircuitBreakers;
  retry?: RetryPolicy;
  /** The whole request's time limit (ms): a retry pause that would outlast it is not taken. */
  requestTimeoutMs?: number;
  /** Waits `ms`, or less when `signal` aborts; injected so retry tests need not wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const MAX_ERROR_BODY = 64 * 1024;

/** Why the request's signal aborted, as the caller tells it (client gone or deadline). */
export class RequestDeadlineError extends Error {}

/**
 * Tries the planned attempts in order. An attempt that fails before anything reached the
 * client is recorded and, when retryable, the next one is tried at once; the plan's last
 * endpoint is tried again, with backoff, after a transient failure (retry-policy.ts). An
 * attempt has until its timeout to begin its answer (the first content part of a stream,
 * the first byte of a non-streamed body), headers included. Endpoints whose circuit is
 * open are skipped. Once the client has a byte, a failure is sent as a mid-stream error
 * instead. Every attempt is recorded and feeds its endpoint's health and circuit, except a
 * retry that failed again (a request's retries count once).
 */
export class AttemptExecutor {
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly client: UpstreamClient;
  private readonly now: () => number;
  private readonly health: HealthStore;
  private readonly breakers: CircuitBreakers;
  private readonly retry: RetryPolicy;
  private readonly requestTimeoutMs: number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(deps: ExecutorDeps) {
    this.adapters = deps.adapters;
    this.client = deps.client;
    this.now = deps.now ?? performance.now.bind(performance);
    this.health = deps.health ?? new InProcessHealthStore();
    this.breakers = deps.breakers ?? new CircuitBreakers();
    this.retry = deps.retry ?? new RetryPolicy();
    this.requestTimeoutMs = deps.requestTimeoutMs ?? Infinity;
    this.sleep = deps.sleep ?? abortableSleep;
  }

  async execute(
    plan: readonly PlannedAttempt[],
    req: CanonicalRequest,
    sink: ExecutionSink,
    signal: AbortSignal,
    attemptTimeoutMs: number,
    gate?: AttemptGate,
  ): Promise<ExecutionResult> {
    const started = this.now();
    const deadlineAt = started + this.requestTimeoutMs;
    const result: ExecutionResult = { served: null, attempts: [], error: null, cancelled: false, firstTokenMs: null };
    let i = 0;
    let retries = 0;
    while (i < plan.length) {
      const attempt = plan[i]!;
      const endpointId = attempt.endpoint.id;
      if (!this.breakers.tryAcquire(endpointId)) {
        // Opened (or being probed) since the plan was made.
        i++;
        retries = 0;
        continue;
      }
      const refused = gate?.enter(attempt.model) ?? null;
      if (refused !== null) {
        // This model's own limit is spent: nothing is sent, its other endpoints are skipped.
        this.breakers.release(endpointId);
        result.attempts.push({ model: attempt.model.id, provider: attempt.endpoint.provider.id, endpoint: endpointId, status: 0, errorCode: refused.code, ms: 0 });
        result.error = refused;
        const next = nextModel(plan, i);
        if (next < 0) break;
        i = next;
        retries = 0;
        continue;
      }
      const t0 = this.now();
      if (!sink.committed) sink.beginAttempt(attempt);
      const run = new AttemptRun(sink, this.now);
      await this.runAttempt(attempt, req, run, signal, attemptTimeoutMs);
      const t1 = this.now();
      if (run.firstContentAt >= 0 && result.firstTokenMs === null) result.firstTokenMs = Math.round(run.firstContentAt - started);
      const error = run.error;
      result.attempts.push({
        model: attempt.model.id,
        provider: attempt.endpoint.provider.id,
        endpoint: endpointId,
        status: run.status,
        errorCode: error?.code ?? (signal.aborted && isDeadline(signal) ? 'timeout' : null),
        ms: Math.round(t1 - t0),
      });
      // A retry that failed again tells nothing new of its endpoint: this request's first
      // failure there already counted. Counting each would let one request demote an
      // endpoint (3 failures in 30 s) and two open its circuit.
      const observed = retries === 0 || error === null;
      if (signal.aborted) return this.aborted(result, attempt, run, sink, signal, t0, t1, req.stream, observed);
      if (run.notSent) {
        // Nothing reached the provider, so nothing is learned of its health; the next
        // endpoint may be able to carry what this one cannot.
        this.breakers.release(endpointId);
        result.error = error;
        i++;
        retries = 0;
        continue;
      }
      if (observed) observeAttempt(this.health, this.breakers, endpointId, run, error, t0, t1, req.stream);
      else this.breakers.release(endpointId);
      if (error === null) {
        result.served = attempt;
        result.error = null; // an earlier attempt's failure is history now
        return result;
      }
      if (sink.committed) {
        // Bytes are with the client: tell it in-stream, never replay on another endpoint.
        result.served = attempt;
        result.error = error;
        sink.part({ type: 'error', error });
        return result;
      }
      result.error = error;
      if (!error.retryable) {
        // The request itself was refused: the model's other endpoints would refuse it too,
        // but a fallback model may take it (a longer context, other limits).
        const next = nextModel(plan, i);
        if (next < 0) return withEarlierAttempts(result);
        i = next;
        retries = 0;
        continue;
      }
      if (i === plan.length - 1 && retriesSameEndpoint(error)) {
        const delay = this.retry.delayMs(retries, error, deadlineAt - this.now());
        if (delay >= 0) {
          if (delay > 0) await this.sleep(delay, signal);
          if (signal.aborted) return this.abortedBetweenAttempts(result, signal);
          retries++;
          continue;
        }
      }
      i++;
      retries = 0;
    }
    if (result.error === null) {
      // Every endpoint of the plan had its circuit opened by other requests meanwhile.
      result.error = new GatewayError('no_provider_available', 'Every endpoint that could serve this request is failing; try again shortly.', {
        metadata: { excluded: plan.map((a) => ({ model: a.model.id, endpoint: a.endpoint.id, provider: a.endpoint.provider.id, reason: 'circuit open' })) },
      });
      return result;
    }
    return withEarlierAttempts(result);
  }

  private async runAttempt(attempt: PlannedAttempt, req: CanonicalRequest, run: AttemptRun, signal: AbortSignal, attemptTimeoutMs: number): Promise<void> {
    const adapter = this.adapters.get(attempt.endpoint.provider.kind);
    if (adapter === undefined) {
      run.fail(new GatewayError('provider_error', `No adapter for provider kind "${attempt.endpoint.provider.kind}".`, {
        metadata: { provider_name: attempt.endpoint.provider.id, raw: null },
      }));
    } else if (adapter.transport === 'local') {
      await runLocal(adapter, attempt, req, run, signal);
    } else {
      await this.runHttp(adapter, attempt, req, run, signal, attemptTimeoutMs);
    }
  }

  /** The request's signal fired during an attempt: the deadline (408) or the client leaving. */
  private aborted(
    result: ExecutionResult,
    attempt: PlannedAttempt,
    run: AttemptRun,
    sink: ExecutionSink,
    signal: AbortSignal,
    t0: number,
    t1: number,
    streamed: boolean,
    observed: boolean,
  ): ExecutionResult {
    if (isDeadline(signal)) {
      const error = new GatewayError('timeout', 'The request exceeded its time limit.');
      // The endpoint did not finish in time: that counts against it (once per request).
      if (observed) observeAttempt(this.health, this.breakers, attempt.endpoint.id, run, error, t0, t1, streamed);
      else this.breakers.release(attempt.endpoint.id);
      result.error = error;
      if (sink.committed) sink.part({ type: 'error', error });
    } else {
      this.breakers.release(attempt.endpoint.id);
      result.cancelled = true;
    }
    result.served = sink.committed ? attempt : null;
    return sink.committed ? result : withEarlierAttempts(result);
  }

  private abortedBetweenAttempts(result: ExecutionResult, signal: AbortSignal): ExecutionResult {
    if (isDeadline(signal)) result.error = new GatewayError('timeout', 'The request exceeded its time limit.');
    else result.cancelled = true;
    return withEarlierAttempts(result);
  }

  private async runHttp(
    adapter: HttpProviderAdapter,
    attempt: PlannedAttempt,
    req: CanonicalRequest,
    run: AttemptRun,
    signal: AbortSignal,
    attemptTimeoutMs: number,
  ): Promise<void> {
    const endpoint = attempt.endpoint;
    let upstreamReq;
    try {
      upstreamReq = adapter.encodeRequest(req, endpoint);
    } catch (err) {
      // This endpoint cannot carry the request (e.g. audio to a provider without audio):
      // another endpoint of the plan may, so the failure moves on rather than ends routing.
      run.notSent = true;
      run.fail(asProviderError(err, attempt));
      return;
    }
    const timeoutMs = Math.min(attemptTimeoutMs, endpoint.provider.timeoutMs);
    // The attempt's deadline: its answer must begin within timeoutMs of sending, headers
    // included (undici's headersTimeout covers the headers alone; its bodyTimeout is long).
    // A stream begins with its first content part (or whatever reached the client first);
    // a non-streamed answer with the first byte of its body. Past the deadline the attempt
    // fails as a timeout, which moves on like any other, and its body is destroyed.
    let res: UpstreamResponse | null = null;
    let bodyStarted = false;
    const deadline = setTimeout(() => {
      if (bodyStarted || run.firstContentAt >= 0 || run.sink.committed || run.error !== null) return;
      run.fail(attemptTimeout(attempt, timeoutMs));
      if (res !== null && !res.body.destroyed) res.body.destroy();
    }, timeoutMs);
    try {
      res = await this.client.send(upstreamReq, signal, timeoutMs, attempt);
    } catch (err) {
      clearTimeout(deadline);
      run.fail(connectError(err, attempt));
      return;
    }
    run.status = res.status;
    const body = res.body;
    try {
      if (run.error !== null) return; // the deadline passed as the headers arrived
      if (res.status >= 400) {
        const text = await readBounded(body, MAX_ERROR_BODY);
        run.fail(adapter.decodeError(res.status, text, res.headers, endpoint));
        return;
      }
      if (req.stream) {
        const decoder = adapter.createStreamDecoder(endpoint, run.emit);
        const parser = new SseParser((ev) => decoder.onEvent(ev));
        body.setEncoding('utf8');
        for await (const chunk of body) {
          parser.push(chunk as string);
          if (run.error !== null) break;
          const drain = run.sink.waitForDrain();
          if (drain !== null) await drain;
        }
        if (run.error === null) {
          parser.end();
          decoder.end();
        }
      } else {
        const chunks: Buffer[] = [];
        for await (const chunk of body) {
          bodyStarted = true;
          chunks.push(chunk as Buffer);
        }
        if (run.error !== null) return;
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          run.fail(new GatewayError('provider_error', 'The provider returned a body that is not valid JSON.', {
            metadata: { provider_name: endpoint.provider.id, raw: text.slice(0, 2000) },
          }));
          return;
        }
        adapter.decodeResponse(json, endpoint, run.emit);
      }
    } catch (err) {
      if (err instanceof SseEventTooLargeError) {
        run.fail(oversizedEventError(endpoint, err.limit, run.status));
      } else if (!signal.aborted) {
        run.fail(new GatewayError('provider_error', 'The connection to the provider failed while reading its answer.', {
          metadata: { provider_name: endpoint.provider.id, raw: errorText(err) },
        }));
      }
    } finally {
      clearTimeout(deadline);
      if (!body.destroyed && (run.error !== null || signal.aborted)) {
        body.destroy(); // ends the upstream request too
      }
    }
  }
}

async function runLocal(adapter: LocalProviderAdapter, attempt: PlannedAttempt, req: CanonicalRequest, run: AttemptRun, signal: AbortSignal): Promise<void> {
  try {
    await adapter.generate(req, attempt.endpoint, run.emit, signal);
    run.status = 200;
  } catch (err) {
    run.fail(asProviderError(err, attempt));
  }
}

/** The index of the first attempt after `i` for another model, or -1. */
function nextModel(plan: readonly PlannedAttempt[], i: number): number {
  const model = plan[i]!.model;
  for (let k = i + 1; k < plan.length; k++) if (plan[k]!.model !== model) return k;
  return -1;
}

function isDeadline(signal: AbortSignal): boolean {
  return signal.reason instanceof RequestDeadlineError;
}

/**
 * The request failed before any answer: its error is the last attempt's, and when there
 * were others before it, `metadata.attempts` lists them (provider, endpoint, status, code)
 * so the client can see what was tried.
 */
function withEarlierAttempts(result: ExecutionResult): ExecutionResult {
  const error = result.error;
  const n = result.attempts.length;
  if (error === null || n < 2) return result;
  const earlier = new Array<Record<string, unknown>>(n - 1);
  for (let k = 0; k < n - 1; k++) {
    const a = result.attempts[k]!;
    earlier[k] = { model: a.model, provider: a.provider, endpoint: a.endpoint, status: a.status, code: a.errorCode };
  }
  result.error = new GatewayError(error.code, error.message, {
    metadata: { ...error.metadata, attempts: earlier },
    ...(error.headers === undefined ? {} : { headers: error.headers }),
    ...(error.param === undefined ? {} : { param: error.param }),
    retryable: error.retryable,
    status: error.status,
  });
  return result;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function readBounded(body: AsyncIterable<Buffer | string>, max: number): Promise<string> {
  let out = '';
  for await (const chunk of body) {
    out += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

function connectError(err: unknown, attempt: PlannedAttempt): GatewayError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('timeout', `The provider ${attempt.endpoint.provider.id} did not answer in time.`, {
      metadata: { provider_name: attempt.endpoint.provider.id },
    });
  }
  return new GatewayError('provider_error', `Could not reach the provider ${attempt.endpoint.provider.id}.`, {
    metadata: { provider_name: attempt.endpoint.provider.id, raw: errorText(err) },
  });
}

function attemptTimeout(attempt: PlannedAttempt, ms: number): GatewayError {
  return new GatewayError('timeout', `The provider ${attempt.endpoint.provider.id} did not begin its answer within ${ms} ms.`, {
    metadata: { provider_name: attempt.endpoint.provider.id },
  });
}

function asProviderError(err: unknown, attempt: PlannedAttempt): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('provider_error', `The provider ${attempt.endpoint.provider.id} failed.`, {
    metadata: { provider_name: attempt.endpoint.provider.id, raw: errorText(err) },
  });
}
