import { test } from 'node:test';
import assert from 'node:assert/strict';
import { periodDays, periodEnd, periodStart } from './key-limit-remaining.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

test('periods start at 00:00 UTC, on Monday for a week, on the 1st for a month', () => {
  const sunday = Date.parse('2026-03-01T23:59:59.999Z'); // a Sunday, and the 1st of March
  assert.equal(iso(periodStart('daily', sunday)), '2026-03-01T00:00:00.000Z');
  assert.equal(iso(periodEnd('daily', sunday)), '2026-03-02T00:00:00.000Z');
  assert.equal(iso(periodStart('weekly', sunday)), '2026-02-23T00:00:00.000Z', 'Sunday belongs to the week that began on Monday');
  assert.equal(iso(periodEnd('weekly', sunday)), '2026-03-02T00:00:00.000Z');
  assert.equal(iso(periodStart('monthly', sunday)), '2026-03-01T00:00:00.000Z');
  assert.equal(iso(periodEnd('monthly', Date.parse('2026-12-31T12:00:00Z'))), '2027-01-01T00:00:00.000Z');
  const monday = Date.parse('2026-03-02T00:00:00Z');
  assert.equal(iso(periodStart('weekly', monday)), '2026-03-02T00:00:00.000Z');
});

test('periodDays lists the UTC days from the period start to today', () => {
  assert.deepEqual(periodDays('weekly', Date.parse('2026-01-07T12:00:00Z')), ['2026-01-05', '2026-01-06', '2026-01-07']);
  assert.deepEqual(periodDays('daily', Date.parse('2026-01-07T00:00:00Z')), ['2026-01-07']);
  assert.equal(periodDays('monthly', Date.parse('2026-01-31T23:00:00Z')).length, 31);
});
