// The issue's table (bench/lib/issue-table.ts) from a made-up run: the ratios it computes,
// met/missed against each goal, a target that failed a mode, and both renderings.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { issueRows, renderMarkdown, renderText, type IssueRow } from '../../bench/lib/issue-table.ts';
import { summarize } from '../../bench/lib/percentiles.ts';
import type { BenchResults, Measured, TargetResults } from '../../bench/lib/results.ts';
import type { ThroughputStats } from '../../bench/lib/throughput.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';

const ok = <T>(value: T): Measured<T> => ({ ok: true, value });

/** 10,000 seeded latencies around `p50Ms`, with a tail of `tailMs` on 2 % of them (so p99 is the tail). */
function latencies(seed: number, p50Ms: number, tailMs: number) {
  const random = seededRandom(seed);
  return summarize(Array.from({ length: 10_000 }, (_, i) => (i % 50 === 0 ? tailMs : p50Ms * (0.95 + random() * 0.1))));
}

function saturation(seed: number, cpuUs: number, rps: number): ThroughputStats {
  return {
    rps, rpsMedian: rps, rpsMin: rps, cpuUsPerResponse: cpuUs, cpuUsPerResponseMean: cpuUs, oneCoreCapacity: 1e6 / cpuUs,
    serverCpu: 1, upstreamCpu: 0.3, loadCpu: 0.5, latency: latencies(seed, 64_000 / rps / 1000, 20), failures: 0, completed: rps * 12, slices: [],
  };
}

function target(seed: number, o: { p50: number; tail: number; cpuUs: number; rps: number; idle: number; after: number; streamed?: Measured<ThroughputStats> }): TargetResults {
  const one = ok({ latency: latencies(seed, o.p50, o.tail), errors: 0, serverCpuUs: o.cpuUs * 2 });
  return {
    idleRssMb: o.idle, afterLoadRssMb: o.after, idleAfterLoadRssMb: o.after,
    oneConnection: { nonStreamed: one, streamed: one },
    saturation: { nonStreamed: ok(saturation(seed, o.cpuUs, o.rps)), streamed: o.streamed ?? ok(saturation(seed + 1, o.cpuUs * 1.2, o.rps / 1.2)) },
    loopDelay: { oneConnection: ok({ maxMs: 12.5, p99Ms: 10.2, meanMs: 10.1, count: 100, resolutionMs: 10 }), saturation: ok({ maxMs: 31, p99Ms: 15, meanMs: 10.5, count: 100, resolutionMs: 10 }) },
  };
}

function results(): BenchResults {
  return {
    machine: { cpus: 2, cpuModel: 'test', memoryGb: 1, node: 'v24', pinned: { load: 0, upstream: 0, server: 1 }, date: '2026-11-24', git: 'abc', loadAverageAtStart: [0, 0, 0], loadAverage: [0, 0, 0] },
    options: { quick: false, samples: 10_000, rounds: 4, connections: 64, sliceSeconds: 3, throughputRounds: 4 },
    targets: {
      direct: target(1, { p50: 0.1, tail: 0.5, cpuUs: 15, rps: 30_000, idle: 50, after: 60 }),
      'bare proxy': target(2, { p50: 0.3, tail: 1.5, cpuUs: 50, rps: 19_000, idle: 88, after: 200 }),
      Portkey: target(3, { p50: 1.5, tail: 30, cpuUs: 250, rps: 4_000, idle: 117, after: 330, streamed: { ok: false, reason: 'Portkey answered a streamed request with 500: {"status":"failure"}' } }),
      // 80 % of the proxy's throughput (met), +0.2 ms at p50 (missed), p99 0.3 ms over the proxy's (met).
      switchyard: target(4, { p50: 0.3 + 0.005, tail: 1.8, cpuUs: 62.5, rps: 15_000, idle: 70, after: 160 }),
    },
    idleLoopDelay: { oneConnection: ok({ maxMs: 11, p99Ms: 10.1, meanMs: 10, count: 100, resolutionMs: 10 }), saturation: ok({ maxMs: 29.5, p99Ms: 10.1, meanMs: 10, count: 100, resolutionMs: 10 }) },
    telemetry: { inProcessUs: { metrics: 2, log: 4.5, both: 6.25 }, endToEnd: ok({ onUs: 62.5, offUs: 55 }) },
    workers: { runs: [], skipped: 'not asked' },
    openStreams: {},
    chunks: {},
  };
}

const row = (rows: IssueRow[], figure: string): IssueRow => {
  const r = rows.find((x) => x.figure.startsWith(figure));
  assert.ok(r, `no row "${figure}" in ${rows.map((x) => x.figure).join(' / ')}`);
  return r;
};

test('throughput on one core is the proxy\'s CPU per response over the target\'s, judged against 75 %', () => {
  const rows = issueRows(results());
  const tp = row(rows, 'throughput on one core (64 conn.), non-streamed');
  assert.equal(tp.cells['bare proxy'], '100 % (50 µs)');
  assert.equal(tp.cells.Portkey, '20 % (250 µs)');
  assert.equal(tp.cells.switchyard, '80 % (63 µs; 4.0× Portkey)');
  assert.equal(tp.met, true);
  assert.equal(row(rows, '  best measured rate, non-streamed').cells.switchyard, '15,000 (79 %)');
});

test('added latency is over direct, the p50 goal over direct and the p99 goal over the proxy', () => {
  const rows = issueRows(results());
  const p50 = row(rows, 'added p50 at 1 connection (');
  assert.equal(p50.cells.direct!.startsWith('0 ('), true);
  assert.equal(p50.met, false, 'switchyard adds ~0.2 ms over direct: more than 0.15');
  const p99 = row(rows, 'added p99 at 1 connection (');
  assert.equal(p99.cells.switchyard, '+1.300');
  assert.equal(p99.met, true, 'p99 0.3 ms over the proxy\'s: within 0.5');
  assert.match(p99.goal, /switchyard: \+0\.300/);
  for (const q of ['p90', 'p99.9', 'max']) assert.equal(row(rows, `added ${q} at 1 connection (`).met, null);
  assert.equal(row(rows, 'added p99 at 64 connections').met, true);
});

test('memory goals: idle ≤ 80 MB met, after the load ≤ 150 MB missed', () => {
  const rows = issueRows(results());
  assert.deepEqual([row(rows, 'RSS idle').met, row(rows, 'RSS after the load').met], [true, false]);
  assert.equal(row(rows, 'RSS after the load').cells.switchyard, '160');
});

test('a target that failed a mode shows "fails" with the HTTP status, and is not counted', () => {
  const rows = issueRows(results());
  const streamed = row(rows, 'throughput on one core (64 conn.), streamed');
  assert.equal(streamed.cells.Portkey, 'fails (HTTP 500)');
  assert.equal(streamed.cells.switchyard, '80 % (75 µs)');
});

test('a target that did not start says so in every cell', () => {
  const r = results();
  const none: Measured<never> = { ok: false, reason: 'did not start: Portkey did not start within 30000 ms' };
  r.targets.Portkey = {
    idleRssMb: NaN, afterLoadRssMb: null, idleAfterLoadRssMb: null, oneConnection: { nonStreamed: none, streamed: none },
    saturation: { nonStreamed: none, streamed: none }, loopDelay: { oneConnection: none, saturation: none },
  };
  const rows = issueRows(r);
  assert.equal(row(rows, 'throughput on one core (64 conn.), non-streamed').cells.Portkey, 'did not start');
  assert.equal(row(rows, 'added p99 at 1 connection (').cells.Portkey, 'did not start');
  assert.equal(row(rows, 'RSS idle').cells.Portkey, '—');
  assert.equal(row(rows, 'throughput on one core (64 conn.), non-streamed').cells.switchyard, '80 % (63 µs)', 'no ratio to a Portkey that did not run');
});

test('event-loop delay and the metrics overhead have rows, without goals to meet', () => {
  const rows = issueRows(results());
  const delay = row(rows, 'event loop max delay, load at 64 connections');
  assert.equal(delay.cells.switchyard, '31.0');
  assert.equal(delay.goal, '— (an idle Node process here: 29.5)', 'the machine\'s own stalls beside the targets\'');
  const telemetry = row(rows, 'metrics + request log');
  assert.equal(telemetry.cells.switchyard, '6.3 µs = 10.0 % of 63 µs; end to end +8 µs (off 55, on 63)');
  assert.equal(telemetry.met, null);
});

test('markdown: the issue\'s columns, one line per row, the verdict in bold', () => {
  const rows = issueRows(results());
  const lines = renderMarkdown(rows).split('\n');
  assert.equal(lines[0], '| figure | direct | bare proxy | Portkey | switchyard | goal |');
  assert.equal(lines[1], '|---|---|---|---|---|---|');
  assert.equal(lines.length, rows.length + 2);
  for (const line of lines) assert.equal(line.split(/(?<!\\)\|/).length, 8, line);
  assert.match(lines.find((l) => l.startsWith('| throughput on one core (64 conn.), non-streamed'))!, /\| ≥ 75 % of the bare proxy: \*\*met\*\* \|$/);
  assert.match(lines.find((l) => l.startsWith('| RSS after the load'))!, /\*\*missed\*\*/);
});

test('text: aligned columns, the header first, met/missed in plain words', () => {
  const rows = issueRows(results());
  const lines = renderText(rows).split('\n');
  assert.match(lines[0]!, /^figure\s+direct\s+bare proxy\s+Portkey\s+switchyard\s+goal$/);
  assert.equal(lines.length, rows.length + 2);
  // The goal column starts at the same place on every line.
  const goalAt = lines[0]!.indexOf('goal');
  for (const line of lines.slice(2)) assert.ok(line.length > goalAt && line[goalAt - 1] === ' ' && line[goalAt - 2] === ' ', line);
  assert.ok(!renderText(rows).includes('**'));
  assert.match(renderText(rows), /≤ 150 MB: missed/);
});
