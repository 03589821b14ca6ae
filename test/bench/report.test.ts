// The detail report (bench/lib/report.ts) from a made-up run: the workers phase's runs and
// the shared store's overhead per request, skipped runs with their reasons, a failing
// target's reason once under its table, and markdown tables that end before the text
// under them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detailReport } from '../../bench/lib/report.ts';
import type { WorkersRun } from '../../bench/lib/results.ts';
import { ok, results } from './sample-results.ts';

const run = (
  label: string,
  store: WorkersRun['store'],
  workers: number,
  gatewayCpuUs: number,
  storeCpuUs: number,
  p50: number,
  p99: number,
): WorkersRun => ({
  label,
  store,
  workers,
  result: ok({ rps: 1e6 / gatewayCpuUs, gatewayCpuUs, storeCpuUs, p50Ms: 20, p99Ms: 90, oneConnectionP50Ms: p50, oneConnectionP99Ms: p99 }),
});

test("the shared store's overhead per request is the fleet at one worker against SQLite at one worker", () => {
  const r = results();
  r.workers = {
    skipped: null,
    runs: [
      run('SQLite, --workers 1', 'sqlite', 1, 250, 0, 0.5, 2),
      run('Postgres + Redis, --workers 1', 'postgres+redis', 1, 290, 35, 0.8, 3.5),
      run('Postgres + Redis, --workers 2', 'postgres+redis', 2, 300, 40, 0.7, 3),
    ],
  };
  const text = detailReport(r, 'text');
  assert.match(text, /Postgres \+ Redis, --workers 2\s+3,333\s+300\s+40/);
  assert.match(
    text,
    /overhead per request \(Postgres \+ Redis vs SQLite, one worker\): gateway CPU \+40 µs, plus 35 µs in Postgres and Redis; latency at 1 connection \+0\.300 ms at p50, \+1\.500 ms at p99/,
  );
});

test('a skipped workers run says why, and no overhead is claimed without both runs', () => {
  const r = results();
  r.workers = {
    skipped: null,
    runs: [
      run('SQLite, --workers 1', 'sqlite', 1, 250, 0, 0.5, 2),
      {
        label: 'Postgres + Redis, --workers 1',
        store: 'postgres+redis',
        workers: 1,
        result: { ok: false, reason: 'skipped: env DATABASE_URL: the postgres scheme is not supported yet' },
      },
    ],
  };
  const text = detailReport(r, 'text');
  assert.match(text, /Postgres \+ Redis, --workers 1\s+skipped \(below\)/);
  assert.match(text, /Postgres \+ Redis, --workers 1: skipped: env DATABASE_URL: the postgres scheme is not supported yet/);
  assert.doesNotMatch(text, /overhead per request/);
});

test('a target failing a mode: "fails (below)" in the cell, the whole reason once under the table', () => {
  const text = detailReport(results(), 'text');
  const reason = 'fails: Portkey: Portkey answered a streamed request with 500: {"status":"failure"}';
  // The made-up Portkey fails streamed saturation only: its reason once, under that table.
  assert.equal(text.split(reason).length - 1, 1);
  assert.ok(text.indexOf(reason) > text.indexOf('Saturation, streamed'));
  assert.match(text, /Portkey\s+fails \(below\)/);
});

test('markdown: every table is followed by a blank line, so the text under it stays text', () => {
  const lines = detailReport(results(), 'markdown').split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    if (lines[i]!.startsWith('|') && !lines[i + 1]!.startsWith('|')) assert.equal(lines[i + 1], '', `after "${lines[i]}"`);
  }
});

test("where a response's CPU goes: each target's threads and their total, after each saturation table", () => {
  const r = results();
  const text = detailReport(r, 'text');
  const at = text.indexOf("Where a response's CPU goes, non-streamed");
  assert.ok(
    at > text.indexOf('Saturation, non-streamed') && at < text.indexOf('Saturation, streamed'),
    'under the non-streamed saturation table',
  );
  const sy = r.targets.switchyard!.saturation.nonStreamed;
  assert.ok(sy.ok && sy.value.threadUs !== null);
  const th = sy.value.threadUs;
  const row = `switchyard\\s+${th['event loop']!.toFixed(1)}\\s+${th['worker threads']!.toFixed(1)}\\s+${th['V8 (GC, compiler)']!.toFixed(1)}\\s+0\\.0\\s+${sy.value.cpuUsPerResponse.toFixed(1)}`;
  assert.match(text.slice(at), new RegExp(row));
});
