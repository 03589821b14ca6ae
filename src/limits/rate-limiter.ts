/**
 * One limit to check: `limit` requests per `periodMs`.
 * - `rolling`: a token bucket (GCRA): bursts up to `limit` at once, refilled evenly.
 * - `calendar`: a fixed window aligned to multiples of `periodMs` since the epoch (UTC days).
 */
export interface RateRule {
  bucket: string;
  kind: 'rolling' | 'calendar';
  limit: number;
  periodMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The binding rule: the refusing one, else the one with the least room (null: no rules). */
  rule: RateRule | null;
  /** The binding rule's limit (the one with the least room). */
  limit: number;
  remaining: number;
  /** Epoch ms when the binding rule is full again. */
  resetAtMs: number;
  /** When refused: how long until a retry can pass. */
  retryAfterMs: number;
}

/**
 * Checks several rules as one: a request passes only if every rule has room, and then
 * counts against all of them; a refused request counts against none. The in-process
 * backend serves one process and answers at once; a shared backend (Redis,
 * redis-rate-limiter.ts) answers with a promise, rejecting with SharedStateUnavailable when
 * it cannot decide. `subject` (the account id) groups one request's buckets (a Redis
 * Cluster hash tag); the in-process backend ignores it.
 */
export interface RateLimiter {
  admit(rules: readonly RateRule[], nowMs: number, subject?: string): RateDecision | Promise<RateDecision>;
}
