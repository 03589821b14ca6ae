import { assertNever } from '../canonical/stream-part.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { AttemptRun } from './attempt-run.ts';
import type { CircuitBreakers } from './circuit-breaker.ts';
import type { HealthOutcome, HealthStore } from './health/health-store.ts';

/**
 * What an attempt says about its endpoint's health. A failure of the endpoint (no
 * connection, timeout, 5xx, a broken answer) counts against it; a rate limit is neither
 * up nor down (OpenRouter's uptime leaves rate-limited requests out too); a request the
 * provider refused as invalid proves the endpoint up.
 */
export function healthOutcome(error: GatewayError | null): HealthOutcome {
  if (error === null || !error.retryable) return 'success';
  return error.metadata?.upstream_status === 429 ? 'rate-limited' : 'failure';
}

/**
 * Feeds one finished attempt to the health store and the endpoint's circuit. Latency is
 * the time to the first content part (for an answer that was not streamed, the whole
 * answer: that is when its first token reached us); throughput is output tokens per second
 * after the first token (for a non-streamed answer, over the whole answer).
 */
export function observeAttempt(
  health: HealthStore,
  breakers: CircuitBreakers,
  endpointId: string,
  run: AttemptRun,
  error: GatewayError | null,
  startedAt: number,
  endedAt: number,
  streamed: boolean,
): void {
  const outcome = healthOutcome(error);
  let latency = -1;
  let tps = -1;
  if (error === null) {
    const firstAt = streamed ? run.firstContentAt : endedAt;
    if (firstAt >= 0) latency = firstAt - startedAt;
    const from = streamed ? run.firstContentAt : startedAt;
    const seconds = (endedAt - from) / 1000;
    if (run.outputTokens > 0 && from >= 0 && seconds > 0) tps = run.outputTokens / seconds;
  }
  health.record(endpointId, outcome, latency, tps);
  switch (outcome) {
    case 'success':
      breakers.onSuccess(endpointId);
      break;
    case 'failure':
      breakers.onFailure(endpointId);
      break;
    case 'rate-limited':
      breakers.release(endpointId);
      break;
    default:
      assertNever(outcome);
  }
}
