import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessRateLimiter } from './in-process-rate-limiter.ts';
import type { RateRule } from './rate-limiter.ts';

const minute = (limit: number, bucket = 'k'): RateRule => ({ bucket, kind: 'rolling', limit, periodMs: 60_000 });

test('a burst up to the limit passes, the next request is refused with the wait until one slot refills', () => {
  const rl = new InProcessRateLimiter();
  const t = 1_000_000;
  for (let i = 0; i < 6; i++) {
    const d = rl.admit([minute(6)], t);
    assert.equal(d.allowed, true, `request ${i + 1}`);
    assert.equal(d.remaining, 5 - i);
    assert.equal(d.limit, 6);
  }
  const refused = rl.admit([minute(6)], t);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterMs, 10_000);
  assert.equal(rl.admit([minute(6)], t + 9_999).allowed, false);
  assert.equal(rl.admit([minute(6)], t + 10_000).allowed, true);
});

test('the bucket refills evenly: after a full period everything is available again', () => {
  const rl = new InProcessRateLimiter();
  for (let i = 0; i < 3; i++) rl.admit([minute(3)], 0);
  const d = rl.admit([minute(3)], 60_000);
  assert.equal(d.allowed, true);
  assert.equal(d.remaining, 2);
});

test('calendar windows count per UTC day and reset at midnight', () => {
  const rl = new InProcessRateLimiter();
  const day: RateRule = { bucket: 'd', kind: 'calendar', limit: 2, periodMs: 86_400_000 };
  const noon = Date.UTC(2026, 10, 22, 12);
  assert.equal(rl.admit([day], noon).allowed, true);
  assert.equal(rl.admit([day], noon + 1).allowed, true);
  const refused = rl.admit([day], noon + 2);
  assert.equal(refused.allowed, false);
  assert.equal(refused.resetAtMs, Date.UTC(2026, 10, 23));
  assert.equal(rl.admit([day], Date.UTC(2026, 10, 23)).allowed, true);
});

test('several rules pass or fail together: a refused request counts against none', () => {
  const rl = new InProcessRateLimiter();
  const a = minute(1, 'a');
  const b = minute(5, 'b');
  assert.equal(rl.admit([a, b], 0).allowed, true);
  assert.equal(rl.admit([a, b], 0).allowed, false);
  // b was not charged by the refused request: 4 left of 5.
  const d = rl.admit([b], 0);
  assert.equal(d.remaining, 3);
});

test('the binding rule is the one with the least room', () => {
  const rl = new InProcessRateLimiter();
  const d = rl.admit([minute(100, 'wide'), minute(2, 'narrow')], 0);
  assert.equal(d.limit, 2);
  assert.equal(d.remaining, 1);
});
