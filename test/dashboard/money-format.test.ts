import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cost, perMillion, spend, usd } from '../../web/src/format.ts';

// The dashboard's money formats work on the API's exact decimal text, never through a float.

test('usd rounds decimal text half up, carries, groups thousands and keeps the sign', () => {
  assert.equal(usd('12.345'), '$12.35');
  assert.equal(usd('9.999'), '$10.00');
  assert.equal(usd('1234567.891'), '$1,234,567.89');
  assert.equal(usd('-3.5'), '-$3.50');
  assert.equal(usd('-0.001'), '$0.00');
  assert.equal(usd('0.1', 4), '$0.1000');
  // 0.1 + 0.2 in floats is 0.30000000000000004; the text path never sees it.
  assert.equal(usd('0.30000000000000004', 17), '$0.30000000000000004');
  assert.equal(usd(undefined), '—');
});

test('a cost is shown exactly, with at least 2 decimals', () => {
  assert.equal(cost('0.000127000'), '$0.000127');
  assert.equal(cost('0.000000001'), '$0.000000001');
  assert.equal(cost('5'), '$5.00');
});

test('per-token prices become per-million prices by moving the decimal point', () => {
  assert.equal(perMillion('0.000001'), '$1.00');
  assert.equal(perMillion('0.0000025'), '$2.50');
  assert.equal(perMillion('0.000000075'), '$0.075');
  assert.equal(perMillion('0'), '$0.00');
});

test('a sum of spend has 4 decimals from a cent up, every decimal below', () => {
  assert.equal(spend('12.345678'), '$12.3457');
  assert.equal(spend('0'), '$0.0000');
  assert.equal(spend('0.000038'), '$0.000038');
  assert.equal(spend('0.000052'), '$0.000052');
  assert.equal(spend('0.01'), '$0.0100');
  assert.equal(spend('0.000000001'), '$0.000000001');
  assert.equal(spend(undefined), '—');
});
