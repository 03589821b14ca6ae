import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import { isTransient, retriesSameEndpoint, RetryPolicy } from './retry-policy.ts';

const upstream = (status: number, extra: Record<string, unknown> = {}) =>
  new GatewayError('provider_error', `HTTP ${status}`, { metadata: { provider_name: 'p', raw: null, upstream_status: status, ...extra } });

describe('RetryPolicy', () => {
  it('backs off exponentially with full jitter under a growing ceiling', () => {
    const policy = new RetryPolicy({ maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999 });
    const err = upstream(503);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((n) => policy.delayMs(n, err, 60_000)),
      [99, 199, 399, 799, 999],
    );
    const low = new RetryPolicy({ maxRetries: 5, baseDelayMs: 100, random: () => 0 });
    assert.equal(low.delayMs(3, err, 60_000), 0, 'full jitter reaches down to zero');
  });

  it('stops after maxRetries', () => {
    const policy = new RetryPolicy({ maxRetries: 2, random: () => 0.5 });
    assert.ok(policy.delayMs(1, upstream(500), 60_000) >= 0);
    assert.equal(policy.delayMs(2, upstream(500), 60_000), -1);
  });

  it('never waits less than the upstream Retry-After', () => {
    const policy = new RetryPolicy({ random: () => 0 });
    assert.equal(policy.delayMs(0, upstream(429, { retry_after_seconds: 3 }), 60_000), 3_000);
  });

  it('gives up instead of waiting past the request deadline or a very long Retry-After', () => {
    const policy = new RetryPolicy({ random: () => 0, maxRetryAfterMs: 10_000 });
    assert.equal(policy.delayMs(0, upstream(429, { retry_after_seconds: 3 }), 2_000), -1);
    assert.equal(policy.delayMs(0, upstream(429, { retry_after_seconds: 30 }), 600_000), -1);
  });
});

describe('isTransient', () => {
  it('connect errors, timeouts, 408, 429 and 5xx are; credentials and refusals are not', () => {
    assert.equal(
      isTransient(new GatewayError('provider_error', 'no route', { metadata: { provider_name: 'p', raw: 'ECONNREFUSED' } })),
      true,
    );
    assert.equal(isTransient(new GatewayError('timeout', 'slow')), true);
    for (const s of [408, 429, 500, 502, 503, 504]) assert.equal(isTransient(upstream(s)), true, String(s));
    for (const s of [401, 402, 403])
      assert.equal(
        isTransient(new GatewayError('provider_error', 'x', { metadata: { upstream_status: s }, retryable: true })),
        false,
        String(s),
      );
    assert.equal(isTransient(new GatewayError('upstream_rejected_request', 'bad')), false);
    assert.equal(isTransient(new GatewayError('provider_error', 'stream said stop', { retryable: false })), false);
  });
});

describe('retriesSameEndpoint', () => {
  it('after every transient failure: connection errors, timeouts, 408, 429 and 5xx, with or without Retry-After', () => {
    const refused = new GatewayError('provider_error', 'no route', { metadata: { provider_name: 'p', raw: 'ECONNREFUSED' } });
    assert.equal(retriesSameEndpoint(refused), true);
    assert.equal(retriesSameEndpoint(new GatewayError('timeout', 'slow')), true);
    for (const s of [408, 429, 500, 502, 503, 504, 529]) {
      assert.equal(retriesSameEndpoint(upstream(s)), true, String(s));
      assert.equal(retriesSameEndpoint(upstream(s, { retry_after_seconds: 1 })), true, `${s} with Retry-After`);
    }
  });

  it('not our credentials or balance with the provider, nor a refused request, nor a stream error marked final', () => {
    for (const s of [401, 402, 403])
      assert.equal(
        retriesSameEndpoint(new GatewayError('provider_error', 'x', { metadata: { upstream_status: s }, retryable: true })),
        false,
        String(s),
      );
    assert.equal(
      retriesSameEndpoint(new GatewayError('upstream_rejected_request', 'bad', { metadata: { retry_after_seconds: 1 } })),
      false,
    );
    assert.equal(retriesSameEndpoint(new GatewayError('provider_error', 'stream said stop', { retryable: false })), false);
  });
});
