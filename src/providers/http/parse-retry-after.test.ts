import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, parseRetryAfterMs } from './parse-retry-after.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');

  it('reads delay-seconds, rounded up', () => {
    assert.equal(parseRetryAfter('12', now), 12);
    assert.equal(parseRetryAfter(' 7 ', now), 7);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('1.2', now), 2);
  });

  it('takes the first of repeated headers', () => {
    assert.equal(parseRetryAfter(['3', '9'], now), 3);
  });

  it('reads an HTTP date as the seconds until it, never below 0', () => {
    assert.equal(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Sun, 01 Jun 2025 11:59:00 GMT', now), 0);
  });

  it('gives undefined for absent, blank or unreadable values', () => {
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
    assert.equal(parseRetryAfter('   ', now), undefined);
    assert.equal(parseRetryAfter([], now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads milliseconds as whole seconds, rounded up', () => {
    assert.equal(parseRetryAfterMs('1500'), 2);
    assert.equal(parseRetryAfterMs(['20']), 1);
    assert.equal(parseRetryAfterMs('0'), 0);
  });

  it('gives undefined for absent, blank, negative or unreadable values', () => {
    assert.equal(parseRetryAfterMs(undefined), undefined);
    assert.equal(parseRetryAfterMs(''), undefined);
    assert.equal(parseRetryAfterMs('-1'), undefined);
    assert.equal(parseRetryAfterMs('later'), undefined);
  });
});
