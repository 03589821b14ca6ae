import { GatewayError } from '../errors/gateway-error.ts';

/**
 * A key's cap on concurrent requests (`max_in_flight`): a request takes a lease at
 * admission and gives it back when it has run, whatever the outcome (an answer, an error,
 * a client that left, a refusal after admission). A full key refuses the next request with
 * 429 (`inFlightRefusal`). In one process the count is a map; a fleet keeps leases in Redis
 * (redis-in-flight-limiter.ts), each with an expiry its instance renews while the request
 * runs, so an instance that dies gives its leases back within one lease time.
 */
export interface InFlightLimiter {
  /** True: the lease is taken (give it back with `release`). False: the key is full. A shared backend rejects with SharedStateUnavailable. */
  acquire(keyHash: string, accountId: string, max: number, leaseId: string): boolean | Promise<boolean>;
  release(keyHash: string, accountId: string, leaseId: string): void | Promise<void>;
}

/** The one process's leases: a count per key. */
export class InProcessInFlightLimiter implements InFlightLimiter {
  private readonly counts = new Map<string, number>();

  acquire(keyHash: string, _accountId: string, max: number): boolean {
    const n = this.counts.get(keyHash) ?? 0;
    if (n >= max) return false;
    this.counts.set(keyHash, n + 1);
    return true;
  }

  release(keyHash: string): void {
    const n = this.counts.get(keyHash) ?? 0;
    if (n <= 1) this.counts.delete(keyHash);
    else this.counts.set(keyHash, n - 1);
  }

  /** Leases held now (tests, metrics). */
  held(keyHash: string): number {
    return this.counts.get(keyHash) ?? 0;
  }
}

/** Seconds a refused request is told to wait: a lease may end at any moment, so the shortest. */
export const IN_FLIGHT_RETRY_AFTER_S = 1;

/** The 429 of a key with `max` requests in flight already (the dialect renders its rate-limit shape). */
export function inFlightRefusal(max: number): GatewayError {
  return new GatewayError(
    'rate_limited',
    `Too many concurrent requests: this key allows ${max} in flight at once (max_in_flight). Retry after ${IN_FLIGHT_RETRY_AFTER_S} s.`,
    {
      headers: { 'retry-after': String(IN_FLIGHT_RETRY_AFTER_S) },
      metadata: { max_in_flight: max },
    },
  );
}
