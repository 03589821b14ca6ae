import type { CanonicalRequest } from '../canonical/request.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { abortableSleep } from '../providers/abortable-sleep.ts';
import { callUpstream } from '../providers/http/call-upstream.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import { providerFailure } from '../providers/http/upstream-error.ts';
import type { LocalProviderAdapter, ProviderAdapter } from '../providers/types.ts';
import type { AttemptGate, AttemptRecord } from './attempt.ts';
import type { Endpoint, PlannedAttempt } from '../catalog/types.ts';

export type { AttemptGate } from './attempt.ts';
import { AttemptRun } from './attempt-run.ts';
import { CircuitBreakers } from './circuit-breaker.ts';
import type { HealthStore } from './health/health-store.ts';
import { InProcessHealthStore } from './health/in-process-health-store.ts';
import { observeAttempt } from './observe-attempt.ts';
import { PlanCursor } from './plan-cursor.ts';
import { settleCredential } from './settle-credential.ts';
import type { PickedCredential } from '../catalog/credential-pool.ts';
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
  /**
   * Milliseconds spent waiting on upstreams, every attempt's summed: what the gateway's own
   * time leaves out (`UpstreamAttempt.waitedMs`; a local provider's whole run, or until its
   * first content part for a stream).
   */
  upstreamWaitMs: number;
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
  /** Epoch ms for credential pools' minutes and cool-downs (default Date.now); tests move it. */
  wallClock?: () => number;
  /** Draws among pooled credentials (default Math.random). */
  random?: () => number;
  /** The operator log: a credential cooled down or taken out. */
  log?: (message: string) => void;
}

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
 * retry that failed again (a request's retries count once). Carrying an attempt to its
 * upstream is the transport's (providers/http/call-upstream.ts); this only orchestrates.
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
  private readonly wallClock: () => number;
  private readonly random: () => number;
  private readonly log: (message: string) => void;

  constructor(deps: ExecutorDeps) {
    this.adapters = deps.adapters;
    this.client = deps.client;
    this.now = deps.now ?? performance.now.bind(performance);
    this.health = deps.health ?? new InProcessHealthStore();
    this.breakers = deps.breakers ?? new CircuitBreakers();
    this.retry = deps.retry ?? new RetryPolicy();
    this.requestTimeoutMs = deps.requestTimeoutMs ?? Infinity;
    this.sleep = deps.sleep ?? abortableSleep;
    this.wallClock = deps.wallClock ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.log = deps.log ?? (() => {});
  }

  async execute(
    plan: readonly PlannedAttempt[],
    req: CanonicalRequest,
    sink: ExecutionSink,
    signal: AbortSignal,
    attemptTimeoutMs: number,
    gate?: AttemptGate,
    clientLeft?: () => boolean,
    byokRejected?: (endpoint: Endpoint, status: number) => void,
  ): Promise<ExecutionResult> {
    const started = this.now();
    const deadlineAt = started + this.requestTimeoutMs;
    const result: ExecutionResult = { served: null, attempts: [], error: null, cancelled: false, firstTokenMs: null, upstreamWaitMs: 0 };
    const at = new PlanCursor(plan);
    while (!at.done) {
      // Nothing is sent for a request already cut, nor for a client that left before any attempt.
      if (signal.aborted || clientLeft?.() === true) return this.abortedBetweenAttempts(result, signal);
      const attempt = at.current;
      const endpointId = attempt.endpoint.id;
      if (!this.breakers.tryAcquire(endpointId)) {
        at.nextEndpoint(); // opened (or being probed) since the plan was made
        continue;
      }
      let refused: GatewayError | null;
      try {
        // The in-process limiter answers at once: awaited only when it is a promise (issue 29).
        const entered = gate === undefined ? null : gate.enter(attempt.model);
        refused = entered instanceof Promise ? await entered : entered;
      } catch (err) {
        this.breakers.release(endpointId); // the shared limiter could not decide: nothing is sent
        throw err;
      }
      if (refused !== null) {
        // This model's own limit is spent: nothing is sent, its other endpoints are skipped.
        this.breakers.release(endpointId);
        recordRefusal(result, attempt, refused);
        at.nextModel();
        continue;
      }
      // A provider with a credential pool: this attempt's credential, among those not yet tried here.
      const pool = attempt.endpoint.provider.credentials;
      let credential: PickedCredential | undefined;
      if (pool !== undefined) {
        try {
          credential = (await pool.pick(attempt.endpoint.upstreamModel, this.wallClock(), at.tried, this.random)) ?? undefined;
        } catch (err) {
          this.breakers.release(endpointId); // the fleet's count could not decide: nothing is sent
          throw err;
        }
        if (credential === undefined) {
          this.breakers.release(endpointId);
          recordNoCredential(result, attempt);
          at.nextEndpoint();
          continue;
        }
        at.tried.add(credential.label);
      }
      const t0 = this.now();
      if (!sink.committed) sink.beginAttempt(attempt);
      const run = new AttemptRun(sink, this.now);
      const running = this.runAttempt(attempt, req, run, signal, attemptTimeoutMs, credential);
      if (running !== undefined) await running;
      const t1 = this.now();
      result.upstreamWaitMs += run.waitedMs;
      recordAttempt(result, attempt, run, signal, started, t0, t1, credential);
      const error = run.error;
      // A retry that failed again tells nothing new of its endpoint: this request's first
      // failure there already counted. Counting each would let one request demote an
      // endpoint (3 failures in 30 s) and two open its circuit.
      const observed = at.retries === 0 || error === null;
      if (signal.aborted) return this.aborted(result, attempt, run, sink, signal, t0, t1, req.stream, observed);
      if (run.notSent) {
        // Nothing reached the provider, so nothing is learned of its health; the next
        // endpoint may be able to carry what this one cannot.
        this.breakers.release(endpointId);
        result.error = error;
        at.nextEndpoint();
        continue;
      }
      if (attempt.endpoint.provider.byok !== undefined && isCredentialRefusal(run.status) && error !== null && !sink.committed) {
        // The account's own key was refused: its failure, not the endpoint's (whose health and
        // circuit are left alone). The account is told in words naming BYOK; the plan goes on
        // to the next endpoint, which is the operator's only in mode \`prefer\`.
        this.breakers.release(endpointId);
        byokRejected?.(attempt.endpoint, run.status);
        result.error = byokKeyRejected(attempt.endpoint, run.status);
        at.nextEndpoint();
        continue;
      }
      if (attempt.endpoint.provider.byok !== undefined && run.status === 429 && error !== null && !sink.committed) {
        // The account's own key is rate limited: its quota, not the endpoint's health (which
        // every account shares). On to the next endpoint (the operator's in mode \`prefer\`).
        this.breakers.release(endpointId);
        result.error = error;
        at.nextEndpoint();
        continue;
      }
      if (
        credential !== undefined &&
        settleCredential(pool!, credential, run, attempt.endpoint, this.wallClock(), this.log) &&
        !sink.committed &&
        clientLeft?.() !== true &&
        pool!.hasOther(attempt.endpoint.upstreamModel, this.wallClock(), at.tried)
      ) {
        // The credential failed, not the endpoint: its health and circuit are left alone, and
        // the same endpoint is tried with another credential before the plan moves on.
        this.breakers.release(endpointId);
        result.error = error;
        continue;
      }
      if (observed) observeAttempt(this.health, this.breakers, endpointId, run, error, t0, t1, req.stream);
      else this.breakers.release(endpointId);
      if (error === null) return served(result, attempt);
      if (sink.committed) return failedInStream(result, attempt, sink, error);
      result.error = error;
      // A client that left is owed no other attempt: none is sent (nor paid) for nobody.
      if (clientLeft?.() === true) return this.abortedBetweenAttempts(result, signal);
      if (!error.retryable) {
        // The request itself was refused: the model's other endpoints would refuse it too,
        // but a fallback model may take it (a longer context, other limits).
        at.nextModel();
      } else if (at.isLast && (await this.pausedForRetry(at.retries, error, deadlineAt, signal))) {
        if (signal.aborted) return this.abortedBetweenAttempts(result, signal);
        at.retries++;
        at.tried.clear(); // a retry may carry any credential with headroom again
      } else {
        at.nextEndpoint();
      }
    }
    // No attempt failed: every endpoint of the plan had its circuit opened by other requests meanwhile.
    if (result.error === null) result.error = allCircuitsOpen(plan);
    return withEarlierAttempts(result);
  }

  /**
   * Whether the plan's last endpoint is asked again after this failure (retry-policy.ts):
   * true after waiting the backoff (cut short when the request's signal aborts).
   */
  private async pausedForRetry(retries: number, error: GatewayError, deadlineAt: number, signal: AbortSignal): Promise<boolean> {
    if (!retriesSameEndpoint(error)) return false;
    const delay = this.retry.delayMs(retries, error, deadlineAt - this.now());
    if (delay < 0) return false;
    if (delay > 0) await this.sleep(delay, signal);
    return true;
  }

  /** Runs one attempt into `run`; the upstream call's own promise (no layer around it), undefined when nothing could run. */
  private runAttempt(
    attempt: PlannedAttempt,
    req: CanonicalRequest,
    run: AttemptRun,
    signal: AbortSignal,
    attemptTimeoutMs: number,
    credential?: PickedCredential,
  ): Promise<void> | undefined {
    const adapter = this.adapters.get(attempt.endpoint.provider.kind);
    if (adapter === undefined) {
      run.fail(
        new GatewayError('provider_error', `No adapter for provider kind "${attempt.endpoint.provider.kind}".`, {
          metadata: { provider_name: attempt.endpoint.provider.id, raw: null },
        }),
      );
      return undefined;
    }
    if (adapter.transport === 'local') return this.runLocalAttempt(adapter, attempt, req, run, signal);
    const timeoutMs = Math.min(attemptTimeoutMs, attempt.endpoint.provider.timeoutMs);
    const traced = credential === undefined ? attempt : { ...attempt, credential: credential.label };
    return callUpstream(this.client, adapter, attempt.endpoint, req, run, signal, timeoutMs, traced, credential);
  }

  private async runLocalAttempt(
    adapter: LocalProviderAdapter,
    attempt: PlannedAttempt,
    req: CanonicalRequest,
    run: AttemptRun,
    signal: AbortSignal,
  ): Promise<void> {
    const start = this.now();
    await runLocal(adapter, attempt, req, run, signal);
    // A local provider stands for an upstream: its run is the wait (a stream's, until its first content).
    run.waitedMs = (req.stream && run.firstContentAt >= 0 ? run.firstContentAt : this.now()) - start;
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
      // The client left and the upstream, sent the request, did not finish within the
      // disconnect grace: the provider bills it, so it is charged (its usage, else the
      // estimate), whether or not any of the answer had reached the client.
      if (!run.notSent) {
        result.served = attempt;
        return result;
      }
    }
    result.served = sink.committed ? attempt : null;
    return sink.committed ? result : withEarlierAttempts(result);
  }

  private abortedBetweenAttempts(result: ExecutionResult, signal: AbortSignal): ExecutionResult {
    if (isDeadline(signal)) result.error = new GatewayError('timeout', 'The request exceeded its time limit.');
    else result.cancelled = true;
    return withEarlierAttempts(result);
  }
}

async function runLocal(
  adapter: LocalProviderAdapter,
  attempt: PlannedAttempt,
  req: CanonicalRequest,
  run: AttemptRun,
  signal: AbortSignal,
): Promise<void> {
  try {
    await adapter.generate(req, attempt.endpoint, run.emit, signal);
    run.status = 200;
  } catch (err) {
    run.fail(providerFailure(err, attempt.endpoint));
  }
}

/** A model's own rate limit refused the attempt before anything was sent. */
function recordRefusal(result: ExecutionResult, attempt: PlannedAttempt, refused: GatewayError): void {
  result.attempts.push({
    model: attempt.model.id,
    provider: attempt.endpoint.provider.id,
    endpoint: attempt.endpoint.id,
    status: 0,
    errorCode: refused.code,
    ms: 0,
  });
  result.error = refused;
}

/** No credential of the endpoint's pool has headroom for its model (all cooling, spent, removed or restricted): nothing is sent. */
function recordNoCredential(result: ExecutionResult, attempt: PlannedAttempt): void {
  result.attempts.push({
    model: attempt.model.id,
    provider: attempt.endpoint.provider.id,
    endpoint: attempt.endpoint.id,
    status: 0,
    errorCode: 'no_provider_available',
    ms: 0,
  });
  result.error = new GatewayError(
    'no_provider_available',
    `No credential of provider "${attempt.endpoint.provider.id}" has headroom for this model now.`,
    {
      metadata: { provider_name: attempt.endpoint.provider.id, reason: 'credentials' },
    },
  );
}

/** Adds the attempt to the record, and the request's time to first content when it brought the first. */
function recordAttempt(
  result: ExecutionResult,
  attempt: PlannedAttempt,
  run: AttemptRun,
  signal: AbortSignal,
  started: number,
  t0: number,
  t1: number,
  credential?: PickedCredential,
): void {
  if (run.firstContentAt >= 0 && result.firstTokenMs === null) result.firstTokenMs = Math.round(run.firstContentAt - started);
  result.attempts.push({
    ...(credential === undefined ? {} : { credential: credential.label }),
    ...(attempt.endpoint.provider.byok === undefined ? {} : { byok: true as const }),
    model: attempt.model.id,
    provider: attempt.endpoint.provider.id,
    endpoint: attempt.endpoint.id,
    status: run.status,
    errorCode: run.error?.code ?? (signal.aborted && isDeadline(signal) ? 'timeout' : null),
    ms: Math.round(t1 - t0),
  });
}

function served(result: ExecutionResult, attempt: PlannedAttempt): ExecutionResult {
  result.served = attempt;
  result.error = null; // an earlier attempt's failure is history now
  return result;
}

/** Bytes are with the client: it is told in-stream, never replayed on another endpoint. */
function failedInStream(result: ExecutionResult, attempt: PlannedAttempt, sink: ExecutionSink, error: GatewayError): ExecutionResult {
  result.served = attempt;
  result.error = error;
  sink.part({ type: 'error', error });
  return result;
}

function isCredentialRefusal(status: number): boolean {
  return status === 401 || status === 403;
}

/** The account's own key (BYOK) refused upstream: said to the account, naming its provider and mode. */
function byokKeyRejected(endpoint: Endpoint, status: number): GatewayError {
  const provider = endpoint.provider.id;
  const mode = endpoint.provider.byok?.mode ?? 'only';
  const then =
    mode === 'only'
      ? 'the gateway\'s own credentials are not used instead (mode "only")'
      : 'the gateway\'s own credentials were tried next (mode "prefer")';
  return new GatewayError(
    'byok_key_rejected',
    `Your own key (BYOK) for provider "${provider}" was refused by the provider (HTTP ${status}); ${then}. Replace it with PUT /api/v1/byok/${provider}.`,
    {
      metadata: { provider_name: provider, byok: true, upstream_status: status },
    },
  );
}

function allCircuitsOpen(plan: readonly PlannedAttempt[]): GatewayError {
  return new GatewayError('no_provider_available', 'Every endpoint that could serve this request is failing; try again shortly.', {
    metadata: {
      excluded: plan.map((a) => ({ model: a.model.id, endpoint: a.endpoint.id, provider: a.endpoint.provider.id, reason: 'circuit open' })),
    },
  });
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
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    retryable: error.retryable,
    status: error.status,
  });
  return result;
}
