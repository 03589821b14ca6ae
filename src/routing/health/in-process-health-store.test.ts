import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../canonical/seeded-random.test-util.ts';
import { InProcessHealthStore } from './in-process-health-store.ts';

function store(start = 10_000_000) {
  const clock = { now: start };
  const health = new InProcessHealthStore({ now: () => clock.now, summaryMinAgeMs: 0 });
  return { clock, health };
}

describe('InProcessHealthStore', () => {
  it('knows nothing of an endpoint without traffic', () => {
    const { health } = store();
    assert.equal(health.hasRecentOutage('e'), false);
    const h = health.health('e');
    assert.equal(h.uptimeLast30m, null);
    assert.equal(h.latencyLast30m, null);
    assert.equal(h.throughputLast30m, null);
  });

  it('a significant outage in the last 30 seconds: at least 3 failures, at least half of the attempts', () => {
    const { clock, health } = store();
    health.record('e', 'failure', -1, -1);
    health.record('e', 'failure', -1, -1);
    assert.equal(health.hasRecentOutage('e'), false, 'two failures are not yet an outage');
    health.record('e', 'failure', -1, -1);
    assert.equal(health.hasRecentOutage('e'), true);
    for (let i = 0; i < 4; i++) health.record('e', 'success', 100, 50);
    assert.equal(health.hasRecentOutage('e'), false, '3 failures among 7 attempts are not half');
    health.record('e', 'failure', -1, -1);
    assert.equal(health.hasRecentOutage('e'), true);
    clock.now += 31_000;
    assert.equal(health.hasRecentOutage('e'), false, 'the outage is forgotten after 30 seconds');
  });

  it('rate-limited attempts count neither for nor against an outage or uptime', () => {
    const { health } = store();
    for (let i = 0; i < 10; i++) health.record('e', 'rate-limited', -1, -1);
    health.record('e', 'success', 100, -1);
    assert.equal(health.hasRecentOutage('e'), false);
    assert.equal(health.health('e').uptimeLast30m, 100);
  });

  it('uptime over 5 minutes, 30 minutes and a day', () => {
    const { clock, health } = store();
    health.record('e', 'failure', -1, -1);
    health.record('e', 'success', 10, -1);
    clock.now += 10 * 60_000;
    health.record('e', 'success', 10, -1);
    health.record('e', 'success', 10, -1);
    const h = health.health('e');
    assert.equal(h.uptimeLast5m, 100);
    assert.equal(h.uptimeLast30m, 75);
    assert.equal(h.uptimeLast1d, 75);
    clock.now += 31 * 60_000;
    assert.equal(health.health('e').uptimeLast30m, null, 'nothing in the last 30 minutes');
    assert.equal(health.health('e').uptimeLast1d, 75);
  });

  it('latency and throughput percentiles count from the good end: p99 is as good as 99 % of samples, toward the worst', () => {
    const { health } = store();
    for (let i = 1; i <= 100; i++) health.record('e', 'success', i * 10, i);
    const h = health.health('e');
    // Latency 10..1000 ms: 99 of the 100 samples are at or below 990 ms (the worst is 1000).
    assert.deepEqual(h.latencyLast30m, { p50: 500, p75: 750, p90: 900, p99: 990 });
    // Throughput 1..100 tok/s, high is good: 99 of the 100 are at or above 2 (the worst is 1).
    assert.deepEqual(h.throughputLast30m, { p50: 51, p75: 26, p90: 11, p99: 2 });
  });

  it('each percentile is the best value that N % of the samples match or beat, in both directions', () => {
    const { health } = store();
    const random = seededRandom(7);
    const latencies: number[] = [];
    const speeds: number[] = [];
    for (let i = 0; i < 200; i++) {
      const latency = Math.round(random() * 5_000);
      const speed = Math.round(random() * 20_000) / 100;
      latencies.push(latency);
      speeds.push(speed);
      health.record('e', 'success', latency, speed);
    }
    const h = health.health('e');
    // 200 samples: all within the 256 the window keeps.
    const window = latencies;
    const tps = speeds;
    for (const [name, p] of [
      ['p50', 50],
      ['p75', 75],
      ['p90', 90],
      ['p99', 99],
    ] as const) {
      const lat = h.latencyLast30m![name];
      assert.ok(window.filter((v) => v <= lat).length >= (p / 100) * window.length, `${name} latency: ${p} % at or below`);
      assert.ok(window.filter((v) => v < lat).length < (p / 100) * window.length, `${name} latency: the smallest such value`);
      const speed = h.throughputLast30m![name];
      assert.ok(tps.filter((v) => v >= speed).length >= (p / 100) * tps.length, `${name} throughput: ${p} % at or above`);
      assert.ok(tps.filter((v) => v > speed).length < (p / 100) * tps.length, `${name} throughput: the largest such value`);
    }
  });

  it('samples older than 30 minutes leave the percentiles', () => {
    const { clock, health } = store();
    health.record('e', 'success', 1_000, 10);
    clock.now += 31 * 60_000;
    health.record('e', 'success', 200, 80);
    assert.deepEqual(health.health('e').latencyLast30m, { p50: 200, p75: 200, p90: 200, p99: 200 });
  });

  it('serves a cached summary for a while, then recomputes', () => {
    const clock = { now: 0 };
    const health = new InProcessHealthStore({ now: () => clock.now, summaryMinAgeMs: 250, summaryMaxAgeMs: 5_000 });
    health.record('e', 'success', 100, -1);
    assert.equal(health.health('e').latencyLast30m?.p50, 100);
    health.record('e', 'success', 300, -1);
    health.record('e', 'success', 300, -1);
    assert.equal(health.health('e').latencyLast30m?.p50, 100, 'within the minimum age');
    clock.now += 250;
    assert.equal(health.health('e').latencyLast30m?.p50, 300);
  });
});
