import { GatewayError } from '../errors/gateway-error.ts';
import type { ModelInfo } from '../catalog/types.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { RateDecision, RateLimiter, RateRule } from './rate-limiter.ts';
import { effectiveLimits, tierAllowsModel, type LimitsOverride, type TierLimits, type TierTable } from '../config/tier-limits.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How long a request-wide refusal is replayed from memory at most (a raised limit takes effect within it). */
const REMEMBER_MS = 10_000;
const REMEMBERED_MAX = 100_000;

export interface RateLimitSubject {
  keyHash: string;
  accountId: string;
  tier: string;
  limitsOverride: LimitsOverride | null;
}

/**
 * Applies the tier's limits to one model call: per key and model per minute, per key per
 * UTC day (tiers with a daily cap), per account per minute (so more keys do not raise an
 * account's capacity). Returns the X-RateLimit-* headers for the answer, or throws 429.
 */
export class RateLimitGate {
  private readonly limiter: RateLimiter;
  private readonly tiers: TierTable;
  private readonly fallbackTier: TierLimits;
  /**
   * Request-wide refusals (a key's day, an account's minute) and when they lift: until
   * then a request of that key or account is refused from its headers, before its body is
   * read (`refusalBeforeBody`) — the limiter's own answer replayed, at no store call.
   */
  private readonly closed = new Map<string, { untilMs: number; decision: RateDecision }>();

  constructor(limiter: RateLimiter, tiers: TierTable) {
    this.limiter = limiter;
    this.tiers = tiers;
    this.fallbackTier = tiers.get('free') ?? [...tiers.values()][0]!;
  }

  tierOf(tierId: string): TierLimits {
    return this.tiers.get(tierId) ?? this.fallbackTier;
  }

  /**
   * A 429 for a key whose daily or account limit refused a request moments ago and has not
   * lifted yet (this process's memory, at most REMEMBER_MS), else null.
   */
  refusalBeforeBody(keyHash: string, accountId: string, nowMs: number): GatewayError | null {
    for (const bucket of [`d:${keyHash}`, `a:${accountId}`]) {
      const c = this.closed.get(bucket);
      if (c === undefined) continue;
      if (c.untilMs <= nowMs) {
        this.closed.delete(bucket);
        continue;
      }
      return rateLimited({ ...c.decision, retryAfterMs: c.untilMs - nowMs });
    }
    return null;
  }

  private remember(decision: RateDecision, nowMs: number): void {
    const bucket = decision.rule?.bucket;
    if (bucket === undefined || decision.retryAfterMs <= 0) return;
    if (this.closed.size >= REMEMBERED_MAX) this.closed.clear();
    this.closed.set(bucket, { untilMs: nowMs + Math.min(decision.retryAfterMs, REMEMBER_MS), decision });
  }

  /** The plan without the models the subject's tier may not call (fallbacks included); 400 when none is left. */
  allowedAttempts(subject: RateLimitSubject, plan: PlannedAttempt[]): PlannedAttempt[] {
    const tier = effectiveLimits(this.tierOf(subject.tier), subject.limitsOverride);
    if (tier.models === null) return plan;
    const allowed = plan.filter((a) => tierAllowsModel(tier, a.model.id));
    if (allowed.length === 0) {
      throw new GatewayError('model_not_found', `Model "${plan[0]!.model.id}" is not available on the ${tier.name} tier.`, {
        param: 'model',
      });
    }
    return allowed;
  }

  /**
   * Admission: counts the request against the per-day and per-account limits and the
   * primary model's per-key limit, as one. Returns the X-RateLimit-* headers and the
   * request's per-model limits, which the executor consults as each further model's first
   * attempt starts. When the primary model's own limit is what is exhausted and the plan
   * has other models, the request is admitted on the others (the primary is then skipped);
   * otherwise the refusal is a 429.
   */
  admit(
    subject: RateLimitSubject,
    plan: readonly PlannedAttempt[],
    nowMs: number,
    clock: () => number = Date.now,
  ): Admission | Promise<Admission> {
    const tier = effectiveLimits(this.tierOf(subject.tier), subject.limitsOverride);
    const requestRules: RateRule[] = [];
    if (tier.requestsPerDay !== null)
      requestRules.push({ bucket: `d:${subject.keyHash}`, kind: 'calendar', limit: tier.requestsPerDay, periodMs: DAY });
    if (tier.accountRequestsPerMinute !== null) {
      requestRules.push({ bucket: `a:${subject.accountId}`, kind: 'rolling', limit: tier.accountRequestsPerMinute, periodMs: MINUTE });
    }
    const models = new ModelRateLimits(this.limiter, subject, tier, nowMs, clock);
    const modelRule = models.rule(plan[0]!.model.id);
    const decision = this.limiter.admit([modelRule, ...requestRules], nowMs, subject.accountId);
    // The in-process limiter answers at once: no promise, no microtask turn (issue 29).
    if (decision instanceof Promise) return decision.then((d) => this.decided(d, subject, plan, nowMs, models, modelRule, requestRules));
    return this.decided(decision, subject, plan, nowMs, models, modelRule, requestRules);
  }

  /** The admission once the limiter decided on the primary model's rule and the request rules. */
  private decided(
    decision: RateDecision,
    subject: RateLimitSubject,
    plan: readonly PlannedAttempt[],
    nowMs: number,
    models: ModelRateLimits,
    modelRule: RateRule,
    requestRules: RateRule[],
  ): Admission | Promise<Admission> {
    const primary = plan[0]!.model.id;
    if (decision.allowed) {
      models.settle(primary, null);
      return { headers: rateLimitHeaders(decision), models };
    }
    const refusal = rateLimited(decision);
    if (decision.rule !== modelRule) {
      this.remember(decision, nowMs);
      throw refusal;
    }
    if (!plan.some((a) => a.model.id !== primary)) throw refusal;
    // Only the primary's own limit is spent: the fallbacks may serve.
    models.settle(primary, refusal);
    if (requestRules.length === 0) return { headers: rateLimitHeaders(decision), models };
    const rest = this.limiter.admit(requestRules, nowMs, subject.accountId);
    if (rest instanceof Promise) return rest.then((r) => this.restDecided(r, nowMs, models));
    return this.restDecided(rest, nowMs, models);
  }

  private restDecided(rest: RateDecision, nowMs: number, models: ModelRateLimits): Admission {
    if (!rest.allowed) {
      this.remember(rest, nowMs);
      throw rateLimited(rest);
    }
    return { headers: rateLimitHeaders(rest), models };
  }
}

/** What admission to the rate limits gives the request: its X-RateLimit-* headers and its per-model limits. */
export interface Admission {
  headers: Record<string, string>;
  models: ModelRateLimits;
}

/**
 * One request's per-key, per-model limits. The primary model is counted at admission; any
 * other model of the plan when its first attempt starts (`enter`), once per request, so a
 * request served by a fallback counts against that model's own limit. A model whose limit
 * is exhausted is refused (429), and the executor moves on to the next model.
 */
export class ModelRateLimits {
  private readonly limiter: RateLimiter;
  private readonly subject: RateLimitSubject;
  private readonly tier: TierLimits;
  private readonly admittedAtMs: number;
  private readonly clock: () => number;
  private readonly results = new Map<string, GatewayError | null>();

  constructor(limiter: RateLimiter, subject: RateLimitSubject, tier: TierLimits, admittedAtMs: number, clock: () => number) {
    this.limiter = limiter;
    this.subject = subject;
    this.tier = tier;
    this.admittedAtMs = admittedAtMs;
    this.clock = clock;
  }

  /** The clock, never before the admission. */
  private now(): number {
    return Math.max(this.admittedAtMs, this.clock());
  }

  rule(modelId: string): RateRule {
    return {
      bucket: `k:${this.subject.keyHash}:${modelId}`,
      kind: 'rolling',
      limit: this.tier.modelRequestsPerMinute[modelId] ?? this.tier.requestsPerMinute,
      periodMs: MINUTE,
    };
  }

  settle(modelId: string, refusal: GatewayError | null): void {
    this.results.set(modelId, refusal);
  }

  /**
   * Null when the model may be tried (counting it the first time); its 429 when its limit
   * is spent. A shared limiter answers with a promise (rejecting when it cannot decide).
   */
  enter(model: ModelInfo): GatewayError | null | Promise<GatewayError | null> {
    const known = this.results.get(model.id);
    if (known !== undefined) return known;
    const decision = this.limiter.admit([this.rule(model.id)], this.now(), this.subject.accountId);
    return decision instanceof Promise ? decision.then((d) => this.decided(model.id, d)) : this.decided(model.id, decision);
  }

  private decided(modelId: string, decision: RateDecision): GatewayError | null {
    const result = decision.allowed ? null : rateLimited(decision, modelId);
    this.results.set(modelId, result);
    return result;
  }
}

function rateLimited(decision: RateDecision, modelId?: string): GatewayError {
  const headers = rateLimitHeaders(decision);
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  headers['retry-after'] = String(retryAfter);
  const per = decision.rule?.kind === 'calendar' ? 'day' : 'minute';
  const what = modelId === undefined ? '' : ` for ${modelId}`;
  return new GatewayError(
    'rate_limited',
    `Rate limit exceeded${what}: ${decision.limit} requests per ${per}. Retry after ${retryAfter} s.`,
    {
      headers,
      metadata: {
        limit: decision.limit,
        reset: Number(headers['x-ratelimit-reset']),
        ...(modelId === undefined ? {} : { model: modelId }),
      },
    },
  );
}

function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(Math.max(0, d.remaining)),
    'x-ratelimit-reset': String(Math.ceil(d.resetAtMs / 1000)),
  };
}
