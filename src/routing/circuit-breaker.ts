// A circuit breaker per endpoint. Closed: attempts flow. After `failureThreshold`
// consecutive failures it opens: the endpoint is skipped for `cooldownMs`. Then it is
// half-open: one attempt at a time may probe it; a success closes the circuit, a failure
// opens it again for another cool-down. State lives in this process: each instance of the
// gateway learns an upstream's failures from its own traffic, which is what a breaker needs.

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = { failureThreshold: 5, cooldownMs: 30_000 };

class Circuit {
  consecutiveFailures = 0;
  /** When the circuit opened, or -1 while it is closed. */
  openedAt = -1;
  probing = false;
}

export class CircuitBreakers {
  private readonly options: BreakerOptions;
  private readonly now: () => number;
  private readonly circuits = new Map<string, Circuit>();
  private opened: ((endpointId: string, consecutiveFailures: number) => void) | null = null;

  constructor(opts: Partial<BreakerOptions> & { now?: () => number } = {}) {
    this.options = { ...DEFAULT_BREAKER_OPTIONS, ...opts };
    this.now = opts.now ?? Date.now;
  }

  /** Told each time a circuit opens (a trip, or a failed probe): metrics and the warn log. */
  onOpen(listener: (endpointId: string, consecutiveFailures: number) => void): void {
    this.opened = listener;
  }

  state(endpointId: string): CircuitState {
    const c = this.circuits.get(endpointId);
    if (c === undefined || c.openedAt < 0) return 'closed';
    return this.now() - c.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** Milliseconds until an open circuit may be probed (0 when it may be tried now). */
  retryInMs(endpointId: string): number {
    const c = this.circuits.get(endpointId);
    if (c === undefined || c.openedAt < 0) return 0;
    return Math.max(0, c.openedAt + this.options.cooldownMs - this.now());
  }

  /**
   * Asks to send an attempt. Always yes while closed; no while open; while half-open, yes
   * to the first caller only (the probe) until it reports back.
   */
  tryAcquire(endpointId: string): boolean {
    const c = this.circuits.get(endpointId);
    if (c === undefined || c.openedAt < 0) return true;
    if (this.now() - c.openedAt < this.options.cooldownMs) return false;
    if (c.probing) return false;
    c.probing = true;
    return true;
  }

  onSuccess(endpointId: string): void {
    const c = this.circuits.get(endpointId);
    if (c === undefined) return;
    c.consecutiveFailures = 0;
    c.openedAt = -1;
    c.probing = false;
  }

  onFailure(endpointId: string): void {
    let c = this.circuits.get(endpointId);
    if (c === undefined) {
      c = new Circuit();
      this.circuits.set(endpointId, c);
    }
    c.consecutiveFailures++;
    if (c.probing || c.openedAt >= 0 || c.consecutiveFailures >= this.options.failureThreshold) {
      // A failed probe (or a failure reported while open) restarts the cool-down.
      c.openedAt = this.now();
      this.opened?.(endpointId, c.consecutiveFailures);
    }
    c.probing = false;
  }

  /** An acquired attempt ended without a verdict on the endpoint (cancelled, rate-limited). */
  release(endpointId: string): void {
    const c = this.circuits.get(endpointId);
    if (c !== undefined) c.probing = false;
  }
}
