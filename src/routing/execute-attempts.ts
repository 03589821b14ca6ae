import type { CanonicalRequest } from '../canonical/request.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import { SseParser } from '../providers/sse/parse-sse.ts';
import type { HttpProviderAdapter, LocalProviderAdapter, ProviderAdapter } from '../providers/types.ts';
import type { AttemptRecord, PlannedAttempt } from './attempt.ts';

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

const MAX_ERROR_BODY = 64 * 1024;

/** Why the request's signal aborted, as the caller tells it (client gone or deadline). */
export class RequestDeadlineError extends Error {}

/**
 * Tries the planned attempts in order. An attempt that fails before anything reached the
 * client is recorded and, when retryable, the next one is tried; once the client has a
 * byte, a failure is sent as a mid-stream error instead.
 */
export class AttemptExecutor {
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly client: UpstreamClient;
  private readonly now: () => number;

  constructor(deps: { adapters: ReadonlyMap<string, ProviderAdapter>; client: UpstreamClient; now?: () => number }) {
    this.adapters = deps.adapters;
    this.client = deps.client;
    this.now = deps.now ?? performance.now.bind(performance);
  }

  async execute(
    plan: readonly PlannedAttempt[],
    req: CanonicalRequest,
    sink: ExecutionSink,
    signal: AbortSignal,
    attemptTimeoutMs: number,
  ): Promise<ExecutionResult> {
    const started = this.now();
    const result: ExecutionResult = { served: null, attempts: [], error: null, cancelled: false, firstTokenMs: null };
    for (const attempt of plan) {
      const t0 = this.now();
      if (!sink.committed) sink.beginAttempt(attempt);
      const run = new AttemptRun(sink, () => {
        if (result.firstTokenMs === null) result.firstTokenMs = Math.round(this.now() - started);
      });
      const adapter = this.adapters.get(attempt.endpoint.provider.kind);
      if (adapter === undefined) {
        run.fail(new GatewayError('provider_error', `No adapter for provider kind "${attempt.endpoint.provider.kind}".`, {
          metadata: { provider_name: attempt.endpoint.provider.id, raw: null },
        }));
      } else if (adapter.transport === 'local') {
        await this.runLocal(adapter, attempt, req, run, signal);
      } else {
        await this.runHttp(adapter, attempt, req, run, signal, attemptTimeoutMs);
      }
      const error = run.error;
      result.attempts.push({
        model: attempt.model.id,
        provider: attempt.endpoint.provider.id,
        endpoint: attempt.endpoint.id,
        status: run.status,
        errorCode: error?.code ?? null,
        ms: Math.round(this.now() - t0),
      });
      if (signal.aborted) {
        if (signal.reason instanceof RequestDeadlineError) {
          result.error = new GatewayError('timeout', 'The request exceeded its time limit.');
          if (sink.committed) sink.part({ type: 'error', error: result.error });
        } else {
          result.cancelled = true;
        }
        result.served = sink.committed ? attempt : null;
        return result;
      }
      if (error === null) {
        result.served = attempt;
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
      if (!error.retryable) return result;
    }
    return result;
  }

  private async runLocal(adapter: LocalProviderAdapter, attempt: PlannedAttempt, req: CanonicalRequest, run: AttemptRun, signal: AbortSignal): Promise<void> {
    try {
      await adapter.generate(req, attempt.endpoint, run.emit, signal);
      run.status = 200;
    } catch (err) {
      run.fail(asProviderError(err, attempt));
    }
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
    const upstreamReq = adapter.encodeRequest(req, endpoint);
    const attemptCtrl = new AbortController();
    const attemptSignal = AbortSignal.any([signal, attemptCtrl.signal]);
    let res;
    try {
      res = await this.client.send(upstreamReq, attemptSignal, Math.min(attemptTimeoutMs, endpoint.provider.timeoutMs));
    } catch (err) {
      run.fail(connectError(err, attempt));
      return;
    }
    run.status = res.status;
    try {
      if (res.status >= 400) {
        const text = await readBounded(res.body, MAX_ERROR_BODY);
        run.fail(adapter.decodeError(res.status, text, res.headers, endpoint));
        return;
      }
      if (req.stream) {
        const decoder = adapter.createStreamDecoder(endpoint, run.emit);
        const parser = new SseParser((ev) => decoder.onEvent(ev));
        res.body.setEncoding('utf8');
        for await (const chunk of res.body) {
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
        const text = await res.body.text();
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
      if (!signal.aborted) {
        run.fail(new GatewayError('provider_error', 'The connection to the provider failed while reading its answer.', {
          metadata: { provider_name: endpoint.provider.id, raw: errorText(err) },
        }));
      }
    } finally {
      if (!res.body.destroyed && (run.error !== null || signal.aborted)) {
        attemptCtrl.abort();
        res.body.destroy();
      }
    }
  }
}

const CONTENT_PARTS: ReadonlySet<StreamPart['type']> = new Set([
  'text-delta', 'reasoning-delta', 'reasoning-signature', 'reasoning-redacted', 'tool-call-start',
]);

/** State of one attempt: intercepts error parts so that routing can fail over. */
class AttemptRun {
  readonly sink: ExecutionSink;
  error: GatewayError | null = null;
  status = 0;
  readonly emit: (part: StreamPart) => void;

  constructor(sink: ExecutionSink, onFirstContent: () => void) {
    this.sink = sink;
    let seenContent = false;
    this.emit = (part) => {
      if (this.error !== null) return;
      if (part.type === 'error') {
        this.error = part.error;
        return;
      }
      if (!seenContent && CONTENT_PARTS.has(part.type)) {
        seenContent = true;
        onFirstContent();
      }
      sink.part(part);
    };
  }

  fail(error: GatewayError): void {
    if (this.error === null) this.error = error;
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

function asProviderError(err: unknown, attempt: PlannedAttempt): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('provider_error', `The provider ${attempt.endpoint.provider.id} failed.`, {
    metadata: { provider_name: attempt.endpoint.provider.id, raw: errorText(err) },
  });
}
