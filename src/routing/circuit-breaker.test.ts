import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CircuitBreakers } from './circuit-breaker.ts';

describe('CircuitBreakers', () => {
  it('goes closed → open → half-open → closed with one probe at a time', () => {
    let now = 1_000;
    const b = new CircuitBreakers({ failureThreshold: 3, cooldownMs: 10_000, now: () => now });
    const ep = 'p/m';
    assert.equal(b.state(ep), 'closed');
    b.onFailure(ep);
    b.onFailure(ep);
    assert.equal(b.state(ep), 'closed', 'two failures are not enough');
    assert.equal(b.tryAcquire(ep), true);
    b.onFailure(ep);
    assert.equal(b.state(ep), 'open');
    assert.equal(b.tryAcquire(ep), false, 'an open circuit refuses attempts');
    assert.equal(b.retryInMs(ep), 10_000);

    now += 9_999;
    assert.equal(b.state(ep), 'open');
    now += 1;
    assert.equal(b.state(ep), 'half-open');
    assert.equal(b.tryAcquire(ep), true, 'the first caller probes');
    assert.equal(b.tryAcquire(ep), false, 'nobody else while the probe is out');
    b.onSuccess(ep);
    assert.equal(b.state(ep), 'closed');
    assert.equal(b.tryAcquire(ep), true);
    assert.equal(b.tryAcquire(ep), true);
  });

  it('a failed probe opens the circuit for another cool-down', () => {
    let now = 0;
    const b = new CircuitBreakers({ failureThreshold: 1, cooldownMs: 1_000, now: () => now });
    b.onFailure('e');
    now = 1_000;
    assert.equal(b.tryAcquire('e'), true);
    now = 1_500;
    b.onFailure('e');
    assert.equal(b.state('e'), 'open');
    assert.equal(b.retryInMs('e'), 1_000);
    now = 2_499;
    assert.equal(b.tryAcquire('e'), false);
    now = 2_500;
    assert.equal(b.tryAcquire('e'), true);
  });

  it('a success resets the count of consecutive failures', () => {
    const b = new CircuitBreakers({ failureThreshold: 2, cooldownMs: 1_000, now: () => 0 });
    b.onFailure('e');
    b.onSuccess('e');
    b.onFailure('e');
    assert.equal(b.state('e'), 'closed');
  });

  it('a probe that ends without a verdict frees the slot for the next', () => {
    let now = 0;
    const b = new CircuitBreakers({ failureThreshold: 1, cooldownMs: 100, now: () => now });
    b.onFailure('e');
    now = 100;
    assert.equal(b.tryAcquire('e'), true);
    b.release('e');
    assert.equal(b.state('e'), 'half-open');
    assert.equal(b.tryAcquire('e'), true);
  });
});
