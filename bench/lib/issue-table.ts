// The table of issue 29 ("Performance, round three"; it took over issue 14's goals),
// re-measured: one row per figure, one column per target (direct | bare proxy | Portkey |
// switchyard) and the goal, with met/missed for switchyard against each goal. Rendered as aligned text for the terminal and as
// markdown for docs/benchmarks.md (`--markdown PATH`).

import type { LatencySummary } from './percentiles.ts';
import type { BenchResults, Measured, TargetResults } from './results.ts';
import { NAMES } from './targets.ts';

/** The reason of a figure a target was not asked for. */
export const NOT_MEASURED = 'not measured';

export const GOALS = {
  /** Of the bare proxy's throughput on one core, streamed and not. */
  throughputShare: 0.5,
  /** Added p50 over direct at 1 connection. */
  addedP50Ms: 0.3,
  /** p99 at 1 connection corrected for coordinated omission (as wrk reports it), over the bare proxy's. */
  correctedP99OverProxyMs: 1,
  /** p99.9 at 1 connection per request, total latency. */
  p999Ms: 5,
  /** RSS 10 s after the load's end. */
  rssAfterLoadMb: 150,
  idleRssMb: 100,
} as const;

/** When "RSS after the load" is read: the issue asks for ≤ 150 MB within 10 s of the load's end. */
export const AFTER_LOAD_SECONDS = 10;

export const COLUMNS = [NAMES.direct, NAMES.proxy, NAMES.portkey, NAMES.switchyard] as const;

export interface IssueRow {
  figure: string;
  /** By column name; a missing one prints as "—". */
  cells: Partial<Record<string, string>>;
  goal: string;
  /** switchyard against the goal; null: a figure without a goal. */
  met: boolean | null;
}

const DASH = '—';
const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const signed = (v: number): string => (Number.isFinite(v) ? `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}` : 'n/a');
const pct = (v: number): string => `${(v * 100).toFixed(0)} %`;
const int = (v: number): string => Math.round(v).toLocaleString('en-US');

function value<T>(m: Measured<T> | undefined): T | null {
  return m !== undefined && m.ok ? m.value : null;
}

/** A short cell for a figure that could not be measured: "fails (HTTP 500)"; the detail report has the whole reason. */
export function failure(m: Measured<unknown> | undefined): string {
  if (m === undefined || m.ok || m.reason === NOT_MEASURED) return DASH;
  if (m.reason.startsWith('did not start')) return 'did not start';
  const status = / with (\d{3})\b/.exec(m.reason);
  return status === null ? 'fails' : `fails (HTTP ${status[1]})`;
}

type Mode = 'nonStreamed' | 'streamed';

function throughputRows(r: BenchResults, mode: Mode, label: string): IssueRow[] {
  const t = (name: string) => value(r.targets[name]?.saturation[mode]);
  const proxy = t(NAMES.proxy);
  const portkey = t(NAMES.portkey);
  const share: IssueRow = {
    figure: `throughput on one core (${r.options.connections} conn.), ${label}: share of the proxy's (CPU µs/response)`,
    cells: {},
    goal: `≥ ${pct(GOALS.throughputShare)} of the bare proxy`,
    met: null,
  };
  const rate: IssueRow = { figure: `  best measured rate, ${label} (/s)`, cells: {}, goal: DASH, met: null };
  for (const name of COLUMNS) {
    const s = t(name);
    if (s === null) {
      share.cells[name] = failure(r.targets[name]?.saturation[mode]);
      rate.cells[name] = share.cells[name];
      continue;
    }
    rate.cells[name] = `${int(s.rps)}${proxy !== null && name !== NAMES.direct ? ` (${pct(s.rps / proxy.rps)})` : ''}`;
    if (name === NAMES.direct || proxy === null) {
      share.cells[name] = `${s.cpuUsPerResponse.toFixed(0)} µs`;
      continue;
    }
    const vsPortkey =
      name === NAMES.switchyard && portkey !== null ? `; ${(portkey.cpuUsPerResponse / s.cpuUsPerResponse).toFixed(1)}× Portkey` : '';
    share.cells[name] = `${pct(proxy.cpuUsPerResponse / s.cpuUsPerResponse)} (${s.cpuUsPerResponse.toFixed(0)} µs${vsPortkey})`;
  }
  const sy = t(NAMES.switchyard);
  share.met = sy === null || proxy === null ? false : proxy.cpuUsPerResponse / sy.cpuUsPerResponse >= GOALS.throughputShare;
  return [share, rate];
}

function latencyRows(r: BenchResults, where: 'oneConnection' | 'saturation', mode: Mode, label: string): IssueRow[] {
  const lat = (name: string): LatencySummary | null => {
    const tr = r.targets[name];
    if (tr === undefined) return null;
    return where === 'oneConnection' ? (value(tr.oneConnection[mode])?.latency ?? null) : (value(tr.saturation[mode])?.latency ?? null);
  };
  const why = (name: string): string =>
    failure(where === 'oneConnection' ? r.targets[name]?.oneConnection[mode] : r.targets[name]?.saturation[mode]);
  const direct = lat(NAMES.direct);
  const sy = lat(NAMES.switchyard);
  const rows: IssueRow[] = [];
  for (const [q, qLabel] of [
    ['p50', 'p50'],
    ['p90', 'p90'],
    ['p99', 'p99'],
    ['p999', 'p99.9'],
    ['max', 'max'],
  ] as const) {
    const row: IssueRow = { figure: `added ${qLabel} ${label} (ms over direct)`, cells: {}, goal: DASH, met: null };
    for (const name of COLUMNS) {
      const l = lat(name);
      if (l === null || direct === null) row.cells[name] = l === null ? why(name) : ms(l[q]);
      else row.cells[name] = name === NAMES.direct ? `0 (${ms(l[q])})` : signed(l[q] - direct[q]);
    }
    if (mode === 'nonStreamed' && q === 'p50' && where === 'oneConnection') {
      row.goal = `≤ +${GOALS.addedP50Ms} ms over direct`;
      row.met = sy !== null && direct !== null && sy.p50 - direct.p50 <= GOALS.addedP50Ms;
    }
    rows.push(row);
  }
  if (mode === 'nonStreamed' && where === 'oneConnection') rows.push(...oneConnectionGoalRows(r, label, sy));
  return rows;
}

/** At 1 connection, non-streamed: the p99 a client sending at a steady rate feels (corrected, as wrk reports it) and the per-request p99.9. */
function oneConnectionGoalRows(r: BenchResults, label: string, sy: LatencySummary | null): IssueRow[] {
  const corrected = (name: string): LatencySummary | null => value(r.targets[name]?.oneConnection.nonStreamed)?.corrected ?? null;
  const direct = corrected(NAMES.direct);
  const proxy = corrected(NAMES.proxy);
  const syCorrected = corrected(NAMES.switchyard);
  const p99: IssueRow = {
    figure: `added p99 ${label}, corrected for coordinated omission (ms over direct)`,
    cells: {},
    goal: DASH,
    met: null,
  };
  const p999: IssueRow = { figure: `p99.9 ${label}, per request (total ms)`, cells: {}, goal: `≤ ${GOALS.p999Ms} ms`, met: null };
  for (const name of COLUMNS) {
    const c = corrected(name);
    const why = failure(r.targets[name]?.oneConnection.nonStreamed);
    p99.cells[name] =
      c === null || direct === null
        ? c === null
          ? why
          : ms(c.p99)
        : name === NAMES.direct
          ? `0 (${ms(c.p99)})`
          : signed(c.p99 - direct.p99);
    const l = value(r.targets[name]?.oneConnection.nonStreamed)?.latency ?? null;
    p999.cells[name] = l === null ? why : ms(l.p999);
  }
  const over = syCorrected !== null && proxy !== null ? syCorrected.p99 - proxy.p99 : NaN;
  p99.goal = `≤ the bare proxy's + ${GOALS.correctedP99OverProxyMs} ms (switchyard: ${signed(over)})`;
  p99.met = Number.isFinite(over) && over <= GOALS.correctedP99OverProxyMs;
  p999.met = sy !== null && sy.p999 <= GOALS.p999Ms;
  return [p99, p999];
}

function memoryRows(r: BenchResults): IssueRow[] {
  const idle: IssueRow = { figure: 'RSS idle after start-up (MB)', cells: {}, goal: `≤ ${GOALS.idleRssMb} MB`, met: null };
  const atEnd: IssueRow = { figure: 'RSS at the end of the load (MB)', cells: {}, goal: DASH, met: null };
  const after: IssueRow = {
    figure: `RSS ${AFTER_LOAD_SECONDS} s after the load (MB)`,
    cells: {},
    goal: `≤ ${GOALS.rssAfterLoadMb} MB`,
    met: null,
  };
  for (const name of COLUMNS) {
    const t: TargetResults | undefined = r.targets[name];
    idle.cells[name] = t === undefined || !Number.isFinite(t.idleRssMb) ? DASH : t.idleRssMb.toFixed(0);
    atEnd.cells[name] = t?.afterLoadRssMb == null ? DASH : t.afterLoadRssMb.toFixed(0);
    after.cells[name] = t?.idleAfterLoadRssMb == null ? DASH : t.idleAfterLoadRssMb.toFixed(0);
  }
  const sy = r.targets[NAMES.switchyard];
  idle.met = sy !== undefined && sy.idleRssMb <= GOALS.idleRssMb;
  after.met = sy?.idleAfterLoadRssMb != null && sy.idleAfterLoadRssMb <= GOALS.rssAfterLoadMb;
  return [idle, atEnd, after];
}

function loopDelayRows(r: BenchResults): IssueRow[] {
  return (['oneConnection', 'saturation'] as const).map((phase) => {
    const idle = r.idleLoopDelay[phase];
    const machine = idle.ok ? `— (an idle Node process here: ${idle.value.maxMs.toFixed(1)})` : DASH;
    const row: IssueRow = {
      figure: `event loop max delay, load at ${phase === 'oneConnection' ? '1 connection' : `${r.options.connections} connections`} (ms)`,
      cells: {},
      goal: machine,
      met: null,
    };
    for (const name of COLUMNS) {
      const d = r.targets[name]?.loopDelay[phase];
      row.cells[name] = d === undefined ? DASH : d.ok ? d.value.maxMs.toFixed(1) : DASH;
    }
    return row;
  });
}

function telemetryRow(r: BenchResults): IssueRow[] {
  const t = r.telemetry;
  if (t === null) return [];
  const sy = value(r.targets[NAMES.switchyard]?.saturation.nonStreamed);
  const share =
    sy === null ? '' : ` = ${((t.inProcessUs.both / sy.cpuUsPerResponse) * 100).toFixed(1)} % of ${sy.cpuUsPerResponse.toFixed(0)} µs`;
  const d = t.endToEnd.ok ? t.endToEnd.value.onUs - t.endToEnd.value.offUs : NaN;
  const e2e = t.endToEnd.ok
    ? `; end to end ${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(0)} µs (off ${t.endToEnd.value.offUs.toFixed(0)}, on ${t.endToEnd.value.onUs.toFixed(0)})`
    : '';
  return [
    {
      figure: 'metrics + request log, CPU per request',
      cells: { [NAMES.switchyard]: `${t.inProcessUs.both.toFixed(1)} µs${share}${e2e}` },
      goal: 'small (issue 15)',
      met: null,
    },
  ];
}

/** The issue's figures from a run's results, in the issue's order, then the ones it asks for beside them. */
export function issueRows(r: BenchResults): IssueRow[] {
  const conns = `at ${r.options.connections} connections`;
  return [
    ...throughputRows(r, 'nonStreamed', 'non-streamed'),
    ...latencyRows(r, 'oneConnection', 'nonStreamed', 'at 1 connection'),
    ...latencyRows(r, 'saturation', 'nonStreamed', conns),
    ...memoryRows(r),
    ...throughputRows(r, 'streamed', 'streamed'),
    ...latencyRows(r, 'oneConnection', 'streamed', 'at 1 connection, streamed').filter((x) => /p50|p99 /.test(x.figure)),
    ...loopDelayRows(r),
    ...telemetryRow(r),
  ];
}

function verdict(row: IssueRow): string {
  return row.met === null ? row.goal : `${row.goal}: **${row.met ? 'met' : 'missed'}**`;
}

export function renderMarkdown(rows: readonly IssueRow[]): string {
  const esc = (s: string): string => s.replaceAll('|', '\\|');
  const head = `| figure | ${COLUMNS.join(' | ')} | goal |`;
  const rule = `|---|${COLUMNS.map(() => '---').join('|')}|---|`;
  return [
    head,
    rule,
    ...rows.map(
      (row) => `| ${esc(row.figure.trim())} | ${COLUMNS.map((c) => esc(row.cells[c] ?? DASH)).join(' | ')} | ${esc(verdict(row))} |`,
    ),
  ].join('\n');
}

export function renderText(rows: readonly IssueRow[]): string {
  const head = ['figure', ...COLUMNS, 'goal'];
  const body = rows.map((row) => [row.figure, ...COLUMNS.map((c) => row.cells[c] ?? DASH), verdict(row).replaceAll('**', '')]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
