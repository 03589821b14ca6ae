import type { GatewayError } from '../errors/gateway-error.ts';

// When and how long to wait before sending a failed attempt again to the same endpoint.
// Moving to the next endpoint of the plan is immediate (another provider owes us no
// pause); waiting only makes sense when the same upstream is asked again.

export interface RetryOptions {
  /** Further tries of the plan's last endpoint (see retriesSameEndpoint). */
  maxRetries: number;
  /** The first backoff ceiling (ms); it doubles with each retry... */
  baseDelayMs: number;
  /** ...up to this (ms). */
  maxDelayMs: number;
  /** A Retry-After longer than this (ms) is not waited for: the failure is returned instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 20_000,
};

export class RetryPolicy {
  readonly options: RetryOptions;
  private readonly random: () => number;

  constructor(opts: Partial<RetryOptions> & { random?: () => number } = {}) {
    this.options = { ...DEFAULT_RETRY_OPTIONS, ...opts };
    this.random = opts.random ?? Math.random;
  }

  /**
   * The pause before retry number `retry` (0 for the first) after `error`, or -1 when it
   * should not be retried: too many retries already, or a wait that would outlast the
   * request (`remainingMs`) or the Retry-After ceiling. Exponential backoff with full
   * jitter (a uniform draw below the ceiling, so that clients that failed together do not
   * come back together), never shorter than the upstream's Retry-After.
   */
  delayMs(retry: number, error: GatewayError, remainingMs: number): number {
    const o = this.options;
    if (retry >= o.maxRetries) return -1;
    const ceiling = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** retry);
    let delay = Math.floor(this.random() * ceiling);
    const retryAfter = retryAfterMs(error);
    if (retryAfter > o.maxRetryAfterMs) return -1;
    if (retryAfter > delay) delay = retryAfter;
    return delay < remainingMs ? delay : -1;
  }
}

/** The upstream's Retry-After as the adapters report it (`metadata.retry_after_seconds`), in ms; 0 when absent. */
export function retryAfterMs(error: GatewayError): number {
  const seconds = error.metadata?.retry_after_seconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/**
 * A failure of this endpoint rather than of the request: the connection failed or timed
 * out, or the upstream answered 408, 429 or 5xx, or a stream reported a retryable error
 * before any content. Not its 401/402/403 (our credentials or balance with that provider:
 * asking again changes nothing, though another provider may serve).
 */
export function isTransient(error: GatewayError): boolean {
  if (!error.retryable) return false;
  if (error.code === 'timeout') return true;
  if (error.code !== 'provider_error') return false;
  const status = error.metadata?.upstream_status;
  if (typeof status !== 'number') return true;
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Whether the plan's last endpoint is worth asking again once no other is left: after any
 * transient failure (a connection that failed or timed out, an answer that did not begin
 * in time, 408, 429, 5xx, a broken answer or a stream's error before any content), with
 * or without Retry-After. While another endpoint is left the executor moves on to it
 * instead, at once: another provider owes us no pause.
 */
export function retriesSameEndpoint(error: GatewayError): boolean {
  return isTransient(error);
}
