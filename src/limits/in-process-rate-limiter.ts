import type { RateDecision, RateLimiter, RateRule } from './rate-limiter.ts';

interface WindowState {
  start: number;
  count: number;
}

interface Pending {
  rule: RateRule;
  /** rolling: the new theoretical arrival time; calendar: the window. */
  tat: number;
  window: WindowState | null;
}

/** Rate limits for one process: GCRA for rolling limits, counters for calendar windows. */
export class InProcessRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private readonly windows = new Map<string, WindowState>();
  private lastSweep = 0;

  admit(rules: readonly RateRule[], now: number): RateDecision {
    if (now - this.lastSweep > 60_000) this.sweep(now);
    const pending: Pending[] = [];
    let binding: RateDecision = {
      allowed: true,
      rule: null,
      limit: 0,
      remaining: Number.MAX_SAFE_INTEGER,
      resetAtMs: now,
      retryAfterMs: 0,
    };
    let refused: RateDecision | null = null;
    for (const rule of rules) {
      const d = rule.kind === 'rolling' ? this.checkRolling(rule, now, pending) : this.checkCalendar(rule, now, pending);
      if (!d.allowed) {
        if (refused === null || d.retryAfterMs > refused.retryAfterMs) refused = d;
      } else if (d.remaining < binding.remaining || binding.rule === null) {
        binding = d;
      }
    }
    if (refused !== null) return refused;
    for (const p of pending) {
      if (p.window !== null) {
        p.window.count++;
        this.windows.set(p.rule.bucket, p.window);
      } else {
        this.tats.set(p.rule.bucket, p.tat);
      }
    }
    return binding;
  }

  // GCRA: each request moves the theoretical arrival time (TAT) on by T = period/limit;
  // a request passes while TAT - now stays within the burst allowance period.
  private checkRolling(rule: RateRule, now: number, pending: Pending[]): RateDecision {
    const interval = rule.periodMs / rule.limit;
    const tat = Math.max(this.tats.get(rule.bucket) ?? now, now);
    const newTat = tat + interval;
    const over = newTat - now - rule.periodMs;
    if (over > 0) {
      return { allowed: false, rule, limit: rule.limit, remaining: 0, resetAtMs: tat, retryAfterMs: Math.ceil(over) };
    }
    pending.push({ rule, tat: newTat, window: null });
    const remaining = Math.floor((rule.periodMs - (newTat - now)) / interval);
    return { allowed: true, rule, limit: rule.limit, remaining, resetAtMs: Math.ceil(newTat), retryAfterMs: 0 };
  }

  private checkCalendar(rule: RateRule, now: number, pending: Pending[]): RateDecision {
    const start = now - (now % rule.periodMs);
    const end = start + rule.periodMs;
    const current = this.windows.get(rule.bucket);
    const count = current !== undefined && current.start === start ? current.count : 0;
    if (count >= rule.limit) {
      return { allowed: false, rule, limit: rule.limit, remaining: 0, resetAtMs: end, retryAfterMs: end - now };
    }
    pending.push({ rule, tat: 0, window: { start, count } });
    return { allowed: true, rule, limit: rule.limit, remaining: rule.limit - count - 1, resetAtMs: end, retryAfterMs: 0 };
  }

  /** Forgets buckets that are full again, so memory follows active keys, not all keys ever seen. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [bucket, tat] of this.tats) if (tat <= now) this.tats.delete(bucket);
    for (const [bucket, w] of this.windows) if (w.start + 86_400_000 * 2 < now) this.windows.delete(bucket);
  }
}
