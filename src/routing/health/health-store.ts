// Health figures per endpoint: what the router demotes on and sorts by, and what
// `GET /models/{author}/{slug}/endpoints` shows. The in-process store is the default; a
// shared backend (Redis, for several instances) implements the same interface by keeping
// a local replica that it refreshes in the background and pushing samples asynchronously,
// so that reads on the request path never wait on the network.

/** How one attempt on an endpoint ended, as far as the endpoint's health goes. */
export type HealthOutcome = 'success' | 'failure' | 'rate-limited';

/** Percentiles over the rolling window (nearest rank, from the good end: pN is as good as N % of the samples or better). */
export interface PercentileStats {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

export interface EndpointHealth {
  /** A significant outage within the outage window (30 s by default): the router demotes it. */
  recentOutage: boolean;
  /** Successes / (successes + failures) × 100; rate-limited attempts count as neither. Null without traffic. */
  uptimeLast5m: number | null;
  uptimeLast30m: number | null;
  uptimeLast1d: number | null;
  /** Milliseconds to the first token. Low is good: 99 % of samples are at or below p99. */
  latencyLast30m: PercentileStats | null;
  /** Output tokens per second after the first token. High is good: 99 % of samples are at or above p99 (toward the slowest, as OpenRouter reports it). */
  throughputLast30m: PercentileStats | null;
}

export interface HealthStore {
  /**
   * One finished attempt. `latencyMs` and `tokensPerSecond` are -1 when not measured
   * (a failure, or an answer without usage).
   */
  record(endpointId: string, outcome: HealthOutcome, latencyMs: number, tokensPerSecond: number): void;
  /** The cheap check the planner makes for every candidate of every request. */
  hasRecentOutage(endpointId: string): boolean;
  /** The full figures; may be up to a fraction of a second old. */
  health(endpointId: string): EndpointHealth;
}
