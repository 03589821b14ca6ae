// The standing performance budget (issue 29): for a plain chat, a streamed chat and a
// tool-heavy agent request (tool-heavy-request.ts), the CPU per request of the bare proxy and
// of switchyard at one connection and at saturation, and switchyard's cost as a ratio to the
// proxy's measured in the same minute, so that the machine's speed and its other load cancel
// out. `npm run bench:quick` prints it; bench/baseline.json holds the committed ratios at
// saturation; test/bench/perf-budget.test.ts fails when a ratio grows more than
// BUDGET_TOLERANCE over its baseline.
//
// CPU is each server process's own (user + system, every thread, /proc/<pid>/stat), never
// wall time: a machine busy with other work slows the run down but changes the CPU a request
// costs far less. At saturation each target's cheapest slice counts (a slow spell raises a
// slice's cost, it never lowers it), the targets taking turns slice by slice.

import { Client } from 'undici';
import { cpuSeconds } from './processes.ts';
import { chatBody } from './scenarios.ts';
import type { Target } from './targets.ts';
import { PATH, saturate, throughputSlice } from './throughput.ts';
import { toolHeavyBody } from './tool-heavy-request.ts';

export const BUDGET_CASES = ['plain', 'streamed', 'tools'] as const;
export type BudgetCase = (typeof BUDGET_CASES)[number];

/** A ratio may grow this much over its baseline before the budget fails. */
export const BUDGET_TOLERANCE = 0.15;

export const CASE_LABELS: Record<BudgetCase, string> = {
  plain: 'plain chat',
  streamed: 'streamed chat',
  tools: 'tool-heavy agent request (20 tools, 33 KB, streamed)',
};

export function caseBody(c: BudgetCase, model: string): string {
  switch (c) {
    case 'plain':
      return chatBody(model, false);
    case 'streamed':
      return chatBody(model, true);
    case 'tools':
      return toolHeavyBody(model, true);
  }
}

const isStreamed = (c: BudgetCase): boolean => c !== 'plain';

export interface BudgetCaseResult {
  /** CPU µs per request, sequential on one connection (null when not measured). */
  oneConnection: { proxyUs: number; switchyardUs: number; ratio: number } | null;
  /** CPU µs per response at `connections` connections, each target's cheapest slice. */
  saturation: { proxyUs: number; switchyardUs: number; ratio: number };
}

export type BudgetResult = Record<BudgetCase, BudgetCaseResult>;

export interface BudgetOptions {
  /**
   * Sequential requests per target for the one-connection figure (0: not measured); it goes on
   * until at least 1.5 s have passed too, so that /proc's 10 ms CPU ticks are a small part.
   */
  oneConnectionRequests: number;
  connections: number;
  sliceSeconds: number;
  /** Slices per target and case, taken in turns. */
  rounds: number;
  upstreamPid: number;
  cases?: readonly BudgetCase[];
  log?: (m: string) => void;
}

/** CPU µs per request of `target` over `n` sequential requests on one keep-alive connection. */
async function oneConnectionUs(target: Target, body: string, n: number): Promise<number> {
  const client = new Client(target.origin, { pipelining: 1, keepAliveTimeout: 60_000 });
  try {
    const once = async (): Promise<void> => {
      const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${target.name} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    };
    for (let k = 0; k < Math.min(200, n); k++) await once();
    const c0 = cpuSeconds(target.pid);
    const t0 = performance.now();
    let done = 0;
    while (done < n || performance.now() - t0 < 1500) {
      await once();
      done++;
    }
    return ((cpuSeconds(target.pid) - c0) / done) * 1e6;
  } finally {
    await client.close();
  }
}

export async function measureBudget(proxy: Target, switchyard: Target, o: BudgetOptions): Promise<BudgetResult> {
  const out = {} as BudgetResult;
  const targets = [proxy, switchyard];
  for (const c of o.cases ?? BUDGET_CASES) {
    const stream = isStreamed(c);
    const bodies = targets.map((t) => caseBody(c, t.model));
    let oneConnection: BudgetCaseResult['oneConnection'] = null;
    if (o.oneConnectionRequests > 0) {
      const us: number[] = [];
      for (let i = 0; i < targets.length; i++) us.push(await oneConnectionUs(targets[i]!, bodies[i]!, o.oneConnectionRequests));
      oneConnection = { proxyUs: us[0]!, switchyardUs: us[1]!, ratio: us[1]! / us[0]! };
    }
    for (let i = 0; i < targets.length; i++) await saturate(targets[i]!, stream, o.connections, Math.min(1, o.sliceSeconds), bodies[i]);
    const best = [Infinity, Infinity];
    for (let r = 0; r < o.rounds; r++) {
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
        const s = await throughputSlice(targets[i]!, {
          stream,
          connections: o.connections,
          seconds: o.sliceSeconds,
          upstreamPid: o.upstreamPid,
          body: bodies[i]!,
        });
        if (s.failures > 0 && s.completed === 0) throw new Error(`${targets[i]!.name}: every request failed (${c})`);
        if (s.completed < 50) continue; // a slice the machine starved says nothing about the cost
        best[i] = Math.min(best[i]!, s.cpuUsPerResponse);
      }
    }
    if (!Number.isFinite(best[0]!) || !Number.isFinite(best[1]!))
      throw new StarvedMeasurement(`budget ${c}: no slice completed 50 responses (the machine is starving the servers)`);
    out[c] = { oneConnection, saturation: { proxyUs: best[0]!, switchyardUs: best[1]!, ratio: best[1]! / best[0]! } };
    o.log?.(
      `  budget ${c}: saturation ${best[1]!.toFixed(0)} µs vs proxy ${best[0]!.toFixed(0)} (×${(best[1]! / best[0]!).toFixed(2)})${oneConnection === null ? '' : `; 1 connection ${oneConnection.switchyardUs.toFixed(0)} vs ${oneConnection.proxyUs.toFixed(0)} µs`}`,
    );
  }
  return out;
}

/** Every slice of a case completed too few responses to say anything: the machine, not the code. */
export class StarvedMeasurement extends Error {}

export interface Baseline {
  /** switchyard's CPU per response at saturation ÷ the bare proxy's, per case. */
  saturationRatio: Record<BudgetCase, number>;
}

/** The cases whose ratio at saturation grew more than `tolerance` over the baseline. */
export function overBudget(result: Partial<BudgetResult>, baseline: Baseline, tolerance = BUDGET_TOLERANCE): string[] {
  const out: string[] = [];
  for (const c of BUDGET_CASES) {
    const r = result[c];
    if (r === undefined) continue;
    const limit = baseline.saturationRatio[c] * (1 + tolerance);
    if (r.saturation.ratio > limit) {
      out.push(
        `${c}: ${r.saturation.switchyardUs.toFixed(0)} µs per response = ×${r.saturation.ratio.toFixed(2)} the proxy's ${r.saturation.proxyUs.toFixed(0)} µs, over the budget ×${limit.toFixed(2)} (baseline ×${baseline.saturationRatio[c].toFixed(2)} + ${Math.round(tolerance * 100)} %)`,
      );
    }
  }
  return out;
}

/** The budget as a table (text), with the baseline's verdict when one is given. */
export function renderBudget(result: BudgetResult, baseline: Baseline | null): string {
  const rows = [['case', '1 conn. µs (proxy)', '1 conn. ratio', 'saturation µs (proxy)', 'share of proxy', 'ratio', 'budget']];
  for (const c of BUDGET_CASES) {
    const r = result[c];
    if (r === undefined) continue;
    const one = r.oneConnection;
    const limit = baseline === null ? null : baseline.saturationRatio[c] * (1 + BUDGET_TOLERANCE);
    rows.push([
      CASE_LABELS[c],
      one === null ? '—' : `${one.switchyardUs.toFixed(0)} (${one.proxyUs.toFixed(0)})`,
      one === null ? '—' : `×${one.ratio.toFixed(2)}`,
      `${r.saturation.switchyardUs.toFixed(0)} (${r.saturation.proxyUs.toFixed(0)})`,
      `${((1 / r.saturation.ratio) * 100).toFixed(0)} %`,
      `×${r.saturation.ratio.toFixed(2)}`,
      limit === null ? '—' : `≤ ×${limit.toFixed(2)}: ${r.saturation.ratio <= limit ? 'within' : 'OVER'}`,
    ]);
  }
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((row) => row[k]!.length)));
  return rows.map((row) => row.map((cell, k) => cell.padEnd(widths[k]!)).join('  ')).join('\n');
}
