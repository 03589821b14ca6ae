import { GatewayError } from '../../errors/gateway-error.ts';

/**
 * Failed-or-not sign-in attempts per client address: at most `max` in `windowMs` (fixed
 * windows, in process). A successful sign-in clears the address's count.
 */
export class SignInLimiter {
  private readonly counts = new Map<string, { n: number; resetAt: number }>();
  private readonly max: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(opts: { max?: number; windowMs?: number; now?: () => number } = {}) {
    this.max = opts.max ?? 10;
    this.windowMs = opts.windowMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  take(ip: string): void {
    const now = this.now();
    let entry = this.counts.get(ip);
    if (entry === undefined || entry.resetAt <= now) {
      if (this.counts.size > 10_000) this.counts.clear();
      entry = { n: 0, resetAt: now + this.windowMs };
      this.counts.set(ip, entry);
    }
    entry.n += 1;
    if (entry.n > this.max) {
      const seconds = Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
      throw new GatewayError('rate_limited', `Too many sign-in attempts; try again in ${seconds} s.`, { headers: { 'retry-after': String(seconds) } });
    }
  }

  forget(ip: string): void {
    this.counts.delete(ip);
  }
}
