// The performance budget alone (bench/lib/budget.ts): node bench/budget.ts [--root CHECKOUT]
// [--runs N] [--seconds S] [--rounds N] [--requests N] [--write-baseline]
//
// Starts the bench upstream, the bare proxy and switchyard (this checkout's, or `--root`'s:
// another checkout with node_modules linked, to measure the code before a change), and prints
// each case's CPU per request at one connection and at saturation and its ratio to the proxy's,
// judged against bench/baseline.json. `--write-baseline` writes the highest ratio of `--runs`
// runs to bench/baseline.json (the highest, so that the committed budget is not a lucky run).
// Unpinned, as the test runs it.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUDGET_CASES, measureBudget, overBudget, renderBudget, type Baseline, type BudgetResult } from './lib/budget.ts';
import { warmUp } from './lib/measure.ts';
import { killAll, stopChild } from './lib/processes.ts';
import { startBareProxy, startSwitchyard, startUpstream } from './lib/targets.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
export const BASELINE_PATH = join(BENCH, 'baseline.json');
const { values: flags } = parseArgs({
  options: {
    root: { type: 'string' },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    requests: { type: 'string' },
    connections: { type: 'string' },
    'write-baseline': { type: 'boolean' },
  },
});
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const runs = Number(flags.runs ?? 1);
const baseline = JSON.parse(readFileSync(BASELINE_PATH, 'utf8')) as Baseline;

try {
  const upstream = await startUpstream();
  const origin = `http://127.0.0.1:${upstream.info.port}`;
  const [proxy, switchyard] = await Promise.all([
    startBareProxy(origin),
    startSwitchyard(origin, flags.root === undefined ? {} : { root: resolve(flags.root) }),
  ]);
  for (const t of [proxy.target, switchyard.target]) await warmUp(t, 500);
  const results: BudgetResult[] = [];
  for (let run = 0; run < runs; run++) {
    const r = await measureBudget(proxy.target, switchyard.target, {
      oneConnectionRequests: Number(flags.requests ?? 1000),
      connections: Number(flags.connections ?? 64),
      sliceSeconds: Number(flags.seconds ?? 1),
      rounds: Number(flags.rounds ?? 3),
      upstreamPid: upstream.pid,
      log,
    });
    results.push(r);
    process.stdout.write(
      `\nrun ${run + 1}${flags.root === undefined ? '' : ` (${flags.root})`}: CPU µs per request, switchyard (bare proxy)\n${renderBudget(r, baseline)}\n`,
    );
    const over = overBudget(r, baseline);
    if (over.length > 0) process.stdout.write(`over the budget:\n  ${over.join('\n  ')}\n`);
  }
  if (flags['write-baseline'] === true) {
    const ratio = Object.fromEntries(
      BUDGET_CASES.map((c) => [c, Math.round(Math.max(...results.map((r) => r[c].saturation.ratio)) * 100) / 100]),
    );
    const out = {
      ...baseline,
      saturationRatio: ratio,
      measured: `${new Date().toISOString()}, the highest of ${runs} runs of node bench/budget.ts`,
    };
    writeFileSync(BASELINE_PATH, `${JSON.stringify(out, null, 2)}\n`);
    log(`wrote ${BASELINE_PATH}`);
  }
  await Promise.all([stopChild(switchyard.child), stopChild(proxy.child), stopChild(upstream)]);
} finally {
  killAll();
}
