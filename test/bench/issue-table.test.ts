// The issue's table (bench/lib/issue-table.ts) from a made-up run: the ratios it computes,
// met/missed against each goal, a target that failed a mode, and both renderings.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { issueRows, renderMarkdown, renderText, type IssueRow } from '../../bench/lib/issue-table.ts';
import type { Measured } from '../../bench/lib/results.ts';
import { latencySamples, ok, oneConnectionStats, results } from './sample-results.ts';

const row = (rows: IssueRow[], figure: string): IssueRow => {
  const r = rows.find((x) => x.figure.startsWith(figure));
  assert.ok(r, `no row "${figure}" in ${rows.map((x) => x.figure).join(' / ')}`);
  return r;
};

test("throughput on one core is the proxy's CPU per response over the target's, judged against 50 %", () => {
  const rows = issueRows(results());
  const tp = row(rows, 'throughput on one core (64 conn.), non-streamed');
  assert.equal(tp.cells['bare proxy'], '100 % (50 µs)');
  assert.equal(tp.cells.Portkey, '20 % (250 µs)');
  assert.equal(tp.cells.switchyard, '80 % (63 µs; 4.0× Portkey)');
  assert.equal(tp.met, true);
  assert.equal(row(rows, '  best measured rate, non-streamed').cells.switchyard, '15,000 (79 %)');
});

test('added latency is over direct; the p50 goal over direct, the corrected p99 over the proxy, the p99.9 per request', () => {
  const rows = issueRows(results());
  const p50 = row(rows, 'added p50 at 1 connection (');
  assert.equal(p50.cells.direct!.startsWith('0 ('), true);
  assert.equal(p50.met, false, 'switchyard adds ~0.35 ms over direct: more than 0.30');
  const p99 = row(rows, 'added p99 at 1 connection (');
  assert.equal(p99.cells.switchyard, '+1.300');
  for (const q of ['p90', 'p99', 'p99.9', 'max']) assert.equal(row(rows, `added ${q} at 1 connection (`).met, null);
  const corrected = row(rows, 'added p99 at 1 connection, corrected for coordinated omission');
  assert.equal(corrected.met, true, "a 1.8 ms tail on 2 % of requests stays within 1 ms of the proxy's 1.5 ms tail");
  const p999 = row(rows, 'p99.9 at 1 connection, per request');
  assert.equal(p999.cells.switchyard, '1.800');
  assert.equal(p999.met, true);
  for (const q of ['p50', 'p99']) assert.equal(row(rows, `added ${q} at 64 connections`).met, null, 'no goal at 64 connections');
});

test('rare long stalls: per-request p99 unmoved, the corrected p99 and the p99.9 missed', () => {
  const r = results();
  // One request in 500 stalls 30 ms: 0.2 % of requests, so the per-request p99 is the body's.
  r.targets.switchyard!.oneConnection.nonStreamed = ok(oneConnectionStats(latencySamples(4, 0.45, 30, 500), 125));
  const rows = issueRows(r);
  const num = (cell: string | undefined): number => Number((cell ?? '').replace('−', '-'));
  assert.ok(num(row(rows, 'added p99 at 1 connection (').cells.switchyard) < 0.5, 'per request, p99 is the body');
  const corrected = row(rows, 'added p99 at 1 connection, corrected for coordinated omission');
  // Each 30 ms stall at a ~0.5 ms interval stands for ~60 requests held back: 20 stalls become ~1,200 samples, > 1 % of them.
  assert.ok(num(corrected.cells.switchyard) > 10, corrected.cells.switchyard);
  assert.equal(corrected.met, false);
  assert.match(corrected.goal, /≤ the bare proxy's \+ 1 ms \(switchyard: \+\d+\.\d{3}\)/);
  assert.equal(row(rows, 'p99.9 at 1 connection, per request').met, false, 'p99.9 is a 30 ms stall: over 5 ms');
});

test('memory goals: idle ≤ 100 MB met, 10 s after the load ≤ 150 MB missed', () => {
  const rows = issueRows(results());
  assert.deepEqual(
    [row(rows, 'RSS idle').met, row(rows, 'RSS 10 s after the load').met, row(rows, 'RSS at the end').met],
    [true, false, null],
  );
  assert.equal(row(rows, 'RSS 10 s after the load').cells.switchyard, '160');
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
    idleRssMb: NaN,
    afterLoadRssMb: null,
    idleAfterLoadRssMb: null,
    oneConnection: { nonStreamed: none, streamed: none },
    saturation: { nonStreamed: none, streamed: none },
    loopDelay: { oneConnection: none, saturation: none },
  };
  const rows = issueRows(r);
  assert.equal(row(rows, 'throughput on one core (64 conn.), non-streamed').cells.Portkey, 'did not start');
  assert.equal(row(rows, 'added p99 at 1 connection (').cells.Portkey, 'did not start');
  assert.equal(row(rows, 'RSS idle').cells.Portkey, '—');
  assert.equal(
    row(rows, 'throughput on one core (64 conn.), non-streamed').cells.switchyard,
    '80 % (63 µs)',
    'no ratio to a Portkey that did not run',
  );
});

test('event-loop delay and the metrics overhead have rows, without goals to meet', () => {
  const rows = issueRows(results());
  const delay = row(rows, 'event loop max delay, load at 64 connections');
  assert.equal(delay.cells.switchyard, '31.0');
  assert.equal(delay.goal, '— (an idle Node process here: 29.5)', "the machine's own stalls beside the targets'");
  const telemetry = row(rows, 'metrics + request log');
  assert.equal(telemetry.cells.switchyard, '6.3 µs = 10.0 % of 63 µs; end to end +8 µs (off 55, on 63)');
  assert.equal(telemetry.met, null);
});

test("markdown: the issue's columns, one line per row, the verdict in bold", () => {
  const rows = issueRows(results());
  const lines = renderMarkdown(rows).split('\n');
  assert.equal(lines[0], '| figure | direct | bare proxy | Portkey | switchyard | goal |');
  assert.equal(lines[1], '|---|---|---|---|---|---|');
  assert.equal(lines.length, rows.length + 2);
  for (const line of lines) assert.equal(line.split(/(?<!\\)\|/).length, 8, line);
  assert.match(
    lines.find((l) => l.startsWith('| throughput on one core (64 conn.), non-streamed'))!,
    /\| ≥ 50 % of the bare proxy: \*\*met\*\* \|$/,
  );
  assert.match(
    lines.find((l) => l.startsWith('| RSS 10 s after the load'))!,
    /\*\*missed\*\*/,
  );
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
