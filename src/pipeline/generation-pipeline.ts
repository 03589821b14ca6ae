import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../auth/authenticate.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Usage } from '../canonical/usage.ts';
import { estimateRequestTokens } from '../canonical/estimate-tokens.ts';
import { computeCost, type Cost } from '../billing/compute-cost.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { PlannedAttempt } from '../routing/attempt.ts';
import { planAttempts } from '../routing/plan-attempts.ts';
import { AttemptExecutor, RequestDeadlineError, type ExecutionResult, type ExecutionSink } from '../routing/execute-attempts.ts';
import { TrackingSink } from './tracking-sink.ts';

import type { DialectName } from '../front/front-dialect.ts';

/** What the route knows of the HTTP request, for the generation record. */
export interface RequestInfo {
  dialect: DialectName;
  httpReferer: string | null;
  xTitle: string | null;
}

/** A request that passed admission: who pays, what to try. */
export interface AdmittedRequest {
  generationId: string;
  created: number;
  auth: AuthContext;
  req: CanonicalRequest;
  plan: PlannedAttempt[];
  info: RequestInfo;
  startedAt: number;
}

export interface GenerationOutcome {
  execution: ExecutionResult;
  usage: Usage | null;
  cost: Cost | null;
  /** The attempt that served the answer (also after a mid-stream failure), or null. */
  served: PlannedAttempt | null;
}

export interface PipelineDeps {
  catalog: Catalog;
  accounts: AccountStore;
  executor: AttemptExecutor;
  settlements: SettlementQueue;
  timeouts: { attemptMs: number; requestMs: number };
  now?: () => number;
}

const CHARS_PER_TOKEN = 4;

/**
 * The spine of a model call after decoding: admit (default model, credits), plan,
 * execute, settle. Routes call `admit` then `run`; each dialect brings its own sink.
 */
export class GenerationPipeline {
  private readonly deps: PipelineDeps;
  private readonly now: () => number;

  constructor(deps: PipelineDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
  }

  admit(auth: AuthContext, req: CanonicalRequest, info: RequestInfo): AdmittedRequest {
    if (req.models.length === 0) {
      const fallback = auth.account.defaultModel;
      if (fallback === null) {
        throw new GatewayError('missing_parameter', 'Missing required parameter: "model" (this account has no default model).', { param: 'model' });
      }
      req.models.push({ model: fallback });
    }
    const plan = planAttempts(req, this.deps.catalog);
    this.checkCredits(auth);
    const startedAt = this.now();
    return {
      generationId: newGenerationId(startedAt),
      created: Math.floor(startedAt / 1000),
      auth,
      req,
      plan,
      info,
      startedAt,
    };
  }

  /** Runs the plan into `sink`, then settles. Never throws for upstream failures: see outcome.execution.error. */
  async run(admitted: AdmittedRequest, sink: ExecutionSink, clientSignal: AbortSignal): Promise<GenerationOutcome> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new RequestDeadlineError()), this.deps.timeouts.requestMs);
    const signal = AbortSignal.any([clientSignal, deadline.signal]);
    const tracking = new TrackingSink(sink);
    let execution: ExecutionResult;
    try {
      execution = await this.deps.executor.execute(admitted.plan, admitted.req, tracking, signal, this.deps.timeouts.attemptMs);
    } finally {
      clearTimeout(timer);
    }
    const served = execution.served;
    let usage = tracking.usage;
    if (usage === null && served !== null && tracking.committed) usage = this.estimateUsage(admitted.req, tracking.outputChars);
    const cost = served !== null && usage !== null ? computeCost(usage, served.endpoint.compiledPricing) : null;
    this.settle(admitted, execution, tracking, usage, cost);
    return {
      execution,
      usage,
      cost,
      served,
    };
  }

  private checkCredits(auth: AuthContext): void {
    const state = this.deps.accounts.spendState(auth.key.hash);
    if (state === undefined) throw new GatewayError('authentication_required', 'Authentication required.');
    if (state.balanceNanos <= 0n) {
      throw new GatewayError('insufficient_quota', 'Insufficient credits: the account balance is zero or negative. Add credits to continue.');
    }
    if (state.limitNanos !== null && state.usageNanos >= state.limitNanos) {
      throw new GatewayError('insufficient_quota', 'Insufficient credits: this API key has reached its credit limit.');
    }
  }

  /** The upstream reported no usage (cancelled or cut short): charge our estimate of what was produced. */
  private estimateUsage(req: CanonicalRequest, outputChars: number): Usage {
    return {
      input: estimateRequestTokens(req),
      cacheRead: 0,
      cacheWrite: 0,
      output: Math.ceil(outputChars / CHARS_PER_TOKEN),
      reasoning: 0,
    };
  }

  private settle(a: AdmittedRequest, ex: ExecutionResult, t: TrackingSink, usage: Usage | null, cost: Cost | null): void {
    const served = ex.served;
    const failed = ex.error !== null;
    this.deps.settlements.push({
      generationId: a.generationId,
      accountId: a.auth.account.id,
      keyHash: a.auth.key.hash,
      costNanos: cost?.totalNanos ?? 0n,
      model: (served ?? a.plan[0]!).model.id,
      provider: served?.endpoint.provider.id ?? null,
      upstreamModel: served?.endpoint.upstreamModel ?? null,
      upstreamId: t.upstreamId,
      dialect: a.info.dialect,
      streamed: a.req.stream,
      cancelled: ex.cancelled,
      status: failed || ex.cancelled ? 'error' : 'success',
      errorCode: ex.error?.code ?? null,
      finishReason: t.finish?.unified ?? null,
      nativeFinishReason: t.finish?.raw ?? null,
      tokensPrompt: usage?.input ?? 0,
      tokensCompletion: usage?.output ?? 0,
      tokensCacheRead: usage?.cacheRead ?? 0,
      tokensCacheWrite: usage?.cacheWrite ?? 0,
      tokensReasoning: usage?.reasoning ?? 0,
      costBreakdown: cost?.breakdown ?? null,
      latencyMs: this.now() - a.startedAt,
      firstTokenMs: ex.firstTokenMs,
      attempts: ex.attempts,
      httpReferer: a.info.httpReferer,
      xTitle: a.info.xTitle,
      endUser: a.req.user ?? null,
      createdAt: new Date(a.startedAt).toISOString(),
    });
  }
}

function newGenerationId(now: number): string {
  return `gen-${Math.floor(now / 1000)}-${randomBytes(10).toString('base64url')}`;
}
