import { GatewayError } from '../../errors/gateway-error.ts';

/** Failed sign-ins an address may make per window: the guessing bound. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;
/** Sign-ins of any outcome an address may make per window: successes too make sessions (rows). */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 30;

interface Window {
  attempts: number;
  failures: number;
  resetAt: number;
}

/**
 * Sign-in attempts per client address, in fixed windows (in process). Failures and attempts
 * are counted apart: an address past `maxFailures` failed sign-ins, or past `maxAttempts`
 * sign-ins of any outcome, is refused (429) until its window ends. A success never clears
 * the failures: good guesses interleaved with bad ones do not reset the guessing bound.
 */
export class SignInLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxFailures: number;
  private readonly maxAttempts: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(opts: { maxFailures?: number; maxAttempts?: number; windowMs?: number; now?: () => number } = {}) {
    this.maxFailures = opts.maxFailures ?? SIGN_IN_FAILURES_PER_MINUTE;
    this.maxAttempts = opts.maxAttempts ?? SIGN_IN_ATTEMPTS_PER_MINUTE;
    this.windowMs = opts.windowMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** An attempt begins: refused when the address is over either bound. */
  take(ip: string): void {
    const now = this.now();
    const w = this.windowOf(ip, now);
    if (w.failures >= this.maxFailures || w.attempts >= this.maxAttempts) {
      const seconds = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
      throw new GatewayError('rate_limited', `Too many sign-in attempts; try again in ${seconds} s.`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    w.attempts += 1;
  }

  /** The attempt failed (a wrong, unknown or unfit key). */
  failed(ip: string): void {
    this.windowOf(ip, this.now()).failures += 1;
  }

  private windowOf(ip: string, now: number): Window {
    let w = this.windows.get(ip);
    if (w === undefined || w.resetAt <= now) {
      // Bounded memory: past 10,000 addresses, the windows that have ended go first.
      if (this.windows.size > 10_000) this.dropEnded(now);
      w = { attempts: 0, failures: 0, resetAt: now + this.windowMs };
      this.windows.set(ip, w);
    }
    return w;
  }

  private dropEnded(now: number): void {
    for (const [ip, w] of this.windows) if (w.resetAt <= now) this.windows.delete(ip);
    // Still too many live windows: start over rather than grow without bound.
    if (this.windows.size > 10_000) this.windows.clear();
  }
}
