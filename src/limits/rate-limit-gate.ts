import { GatewayError } from '../errors/gateway-error.ts';
import type { PlannedAttempt } from '../routing/attempt.ts';
import type { RateDecision, RateLimiter, RateRule } from './rate-limiter.ts';
import { effectiveLimits, tierAllowsModel, type LimitsOverride, type TierLimits, type TierTable } from './tier-limits.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

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

  constructor(limiter: RateLimiter, tiers: TierTable) {
    this.limiter = limiter;
    this.tiers = tiers;
    this.fallbackTier = tiers.get('free') ?? [...tiers.values()][0]!;
  }

  tierOf(tierId: string): TierLimits {
    return this.tiers.get(tierId) ?? this.fallbackTier;
  }

  /** The plan without the models the subject's tier may not call (fallbacks included); 400 when none is left. */
  allowedAttempts(subject: RateLimitSubject, plan: PlannedAttempt[]): PlannedAttempt[] {
    const tier = effectiveLimits(this.tierOf(subject.tier), subject.limitsOverride);
    if (tier.models === null) return plan;
    const allowed = plan.filter((a) => tierAllowsModel(tier, a.model.id));
    if (allowed.length === 0) {
      throw new GatewayError('model_not_found', `Model "${plan[0]!.model.id}" is not available on the ${tier.name} tier.`, { param: 'model' });
    }
    return allowed;
  }

  /** Counts the request against the primary model's limits; returns the X-RateLimit-* headers or throws 429. */
  check(subject: RateLimitSubject, modelId: string, nowMs: number): Record<string, string> {
    const tier = effectiveLimits(this.tierOf(subject.tier), subject.limitsOverride);
    const rules: RateRule[] = [{
      bucket: `k:${subject.keyHash}:${modelId}`,
      kind: 'rolling',
      limit: tier.modelRequestsPerMinute[modelId] ?? tier.requestsPerMinute,
      periodMs: MINUTE,
    }];
    if (tier.requestsPerDay !== null) rules.push({ bucket: `d:${subject.keyHash}`, kind: 'calendar', limit: tier.requestsPerDay, periodMs: DAY });
    if (tier.accountRequestsPerMinute !== null) {
      rules.push({ bucket: `a:${subject.accountId}`, kind: 'rolling', limit: tier.accountRequestsPerMinute, periodMs: MINUTE });
    }
    const decision = this.limiter.admit(rules, nowMs);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      headers['retry-after'] = String(retryAfter);
      throw new GatewayError('rate_limited', `Rate limit exceeded: ${decision.limit} requests per ${decision.rule?.kind === 'calendar' ? 'day' : 'minute'}. Retry after ${retryAfter} s.`, {
        headers,
        metadata: { limit: decision.limit, reset: Number(headers['x-ratelimit-reset']) },
      });
    }
    return headers;
  }
}

function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(Math.max(0, d.remaining)),
    'x-ratelimit-reset': String(Math.ceil(d.resetAtMs / 1000)),
  };
}
