// The detail behind the table: every phase's figures per target, as aligned text
// or as markdown tables (`--markdown`).

import { AFTER_LOAD_SECONDS, NOT_MEASURED } from './issue-table.ts';
import { PACE_MS, PACE_WORDS } from './scenarios.ts';
import type { BenchResults, Measured } from './results.ts';
import { NAMES } from './targets.ts';
import { THREAD_KINDS } from './thread-cpu.ts';

export type Format = 'text' | 'markdown';

export function renderTable(format: Format, head: string[], rows: string[][]): string {
  if (format === 'markdown') {
    const esc = (s: string): string => (s === '' ? ' ' : s.replaceAll('|', '\\|'));
    // The blank line ends the table: a text line right under it would become a row.
    return [
      `| ${head.map(esc).join(' | ')} |`,
      `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
      ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
      '',
    ].join('\n');
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const ms1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
const pct = (v: number): string => `${(v * 100).toFixed(0)} %`;
const int = (v: number): string => Math.round(v).toLocaleString('en-US');
const signed = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(3)}`;
const us = (v: number): string => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(0)}`;

export function detailReport(r: BenchResults, format: Format): string {
  const heading = (t: string): string => (format === 'markdown' ? `\n#### ${t}\n` : `\n${t}`);
  const table = (head: string[], rows: string[][]): string => renderTable(format, head, rows);
  const names = Object.keys(r.targets);
  // A failure's whole reason goes under its table, once; the cell says "fails".
  const reasons: string[] = [];
  const failed = (n: string, reason: string): string => {
    if (reason === NOT_MEASURED) return '—';
    const line = `${n}: ${reason}`;
    if (!reasons.includes(line)) reasons.push(line);
    return 'fails (below)';
  };
  const flushReasons = (): void => {
    for (const line of reasons.splice(0)) out.push(`  fails: ${line}`);
  };
  const main = names.filter((n) => n !== NAMES.telemetryOff);
  const out: string[] = [];
  const m = r.machine;
  out.push(heading('How this run was made'));
  out.push(
    `${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, node ${m.node}, commit ${m.git}, ${m.date}; load average (1, 5, 15 min) at the start ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' ')}, at the end ${m.loadAverage.map((x) => x.toFixed(2)).join(' ')}.`,
  );
  out.push(
    m.pinned
      ? `At saturation the server under test is pinned to CPU ${m.pinned.server}, the load generator to CPU ${m.pinned.load}, the upstream to CPU ${m.pinned.upstream}; the 1-connection phases are not pinned.`
      : 'Not pinned: load generator, upstream and server under test share the CPUs.',
  );
  out.push(
    `${r.options.quick ? 'QUICK run: ' : ''}${r.options.samples} requests per target and mode at 1 connection; at saturation ${r.options.connections} connections, ${r.options.rounds} interleaved slices of ${r.options.sliceSeconds} s per target (more when fewer than ${r.options.samples} responses were timed).`,
  );

  for (const [mode, label] of [
    ['nonStreamed', 'non-streamed'],
    ['streamed', 'streamed (22 SSE events per answer)'],
  ] as const) {
    const d = r.targets[NAMES.direct]?.oneConnection[mode];
    const p = r.targets[NAMES.proxy]?.oneConnection[mode];
    out.push(heading(`Latency at 1 connection, ${label} (sequential, send → last byte; ms)`));
    out.push(
      table(
        [
          '',
          'p50',
          'p90',
          'p99',
          'p99.9',
          'max',
          'mean',
          'samples',
          'errors',
          'server CPU µs/req',
          'p50 over direct',
          'p99 over proxy',
          'corrected p99 / p99.9',
        ],
        main.map((n) => {
          const s = r.targets[n]!.oneConnection[mode];
          if (!s.ok) return [n, failed(n, s.reason), '', '', '', '', '', '', '', '', '', '', ''];
          const l = s.value.latency;
          const c = s.value.corrected;
          return [
            n,
            ms(l.p50),
            ms(l.p90),
            ms(l.p99),
            ms(l.p999),
            ms1(l.max),
            ms(l.mean),
            String(l.samples),
            String(s.value.errors),
            s.value.serverCpuUs.toFixed(0),
            d?.ok && n !== NAMES.direct ? signed(l.p50 - d.value.latency.p50) : '',
            p?.ok && n !== NAMES.direct && n !== NAMES.proxy ? signed(l.p99 - p.value.latency.p99) : '',
            c === undefined ? '' : `${ms(c.p99)} / ${ms(c.p999)}`,
          ];
        }),
      ),
    );
    flushReasons();
    const pr = r.targets[NAMES.proxy]?.saturation[mode];
    out.push(heading(`Saturation, ${label}: ${r.options.connections} connections, throughput on one core and latency (ms)`));
    out.push(
      table(
        [
          '',
          'best /s',
          'median',
          'worst',
          'min CPU µs/resp',
          'mean',
          '1-core cap.',
          'vs proxy',
          'server CPU',
          'upstr. CPU',
          'loadgen CPU',
          'p50',
          'p90',
          'p99',
          'p99.9',
          'max',
          'samples',
          'failed',
        ],
        names.map((n) => {
          const s = r.targets[n]!.saturation[mode];
          if (!s.ok) return [n, failed(n, s.reason), ...Array<string>(16).fill('')];
          const t = s.value;
          return [
            n,
            int(t.rps),
            int(t.rpsMedian),
            int(t.rpsMin),
            t.cpuUsPerResponse.toFixed(0),
            t.cpuUsPerResponseMean.toFixed(0),
            int(t.oneCoreCapacity),
            pr?.ok && n !== NAMES.direct ? pct(pr.value.cpuUsPerResponse / t.cpuUsPerResponse) : '',
            pct(t.serverCpu),
            n === NAMES.direct ? '(server)' : pct(t.upstreamCpu),
            pct(t.loadCpu),
            ms(t.latency.p50),
            ms(t.latency.p90),
            ms(t.latency.p99),
            ms(t.latency.p999),
            ms1(t.latency.max),
            String(t.latency.samples),
            String(t.failures),
          ];
        }),
      ),
    );
    flushReasons();
    out.push(heading(`Where a response's CPU goes, ${label} (µs per response by thread, over every slice; /proc/<pid>/task)`));
    out.push(
      table(
        ['', ...THREAD_KINDS, 'total'],
        names.flatMap((n) => {
          const s = r.targets[n]!.saturation[mode];
          const th = s.ok ? s.value.threadUs : null;
          if (th === null) return [];
          const cells = THREAD_KINDS.map((k) => (th[k] ?? 0).toFixed(1));
          return [[n, ...cells, THREAD_KINDS.reduce((sum, k) => sum + (th[k] ?? 0), 0).toFixed(1)]];
        }),
      ),
    );
  }
  const spreads = names
    .flatMap((n) => (['nonStreamed', 'streamed'] as const).map((mode) => r.targets[n]!.saturation[mode]))
    .filter((s) => s.ok)
    .map((s) => (s as { value: { rps: number; rpsMin: number } }).value)
    .map((t) => t.rps / Math.max(1, t.rpsMin));
  if (spreads.length > 0 && Math.max(...spreads) > 1.3) {
    out.push(
      `\nNote: the slices of one target differ by up to ${Math.max(...spreads).toFixed(1)}× in rate: the machine was noisy. CPU per response is the steadier figure.`,
    );
  }

  out.push(heading('Event loop delay during the load (ms; perf_hooks.monitorEventLoopDelay, 10 ms sampling, so ~10 is an idle loop)'));
  const delay = (d: Measured<{ maxMs: number; p99Ms: number }>): string[] => (d.ok ? [ms1(d.value.maxMs), ms1(d.value.p99Ms)] : ['—', '—']);
  out.push(
    table(
      ['', '1 conn.: max', 'p99', `${r.options.connections} conn.: max`, 'p99'],
      [
        ...names.map((n) => [n, ...delay(r.targets[n]!.loopDelay.oneConnection), ...delay(r.targets[n]!.loopDelay.saturation)]),
        [`${NAMES.idle} (the machine's own stalls)`, ...delay(r.idleLoopDelay.oneConnection), ...delay(r.idleLoopDelay.saturation)],
      ],
    ),
  );

  out.push(heading('Memory (RSS, MB)'));
  const stepCount = Math.max(0, ...Object.values(r.openStreams).map((s) => (s.ok ? s.value.steps.length : 0)));
  const steps = (n: string): string[] => {
    const s = r.openStreams[n];
    if (s === undefined) return Array<string>(stepCount * 2 + 1).fill('');
    if (!s.ok) return [`fails`, ...Array<string>(stepCount * 2).fill('')];
    return [
      s.value.rssBeforeMb.toFixed(1),
      ...s.value.steps.flatMap((x) => [`${x.opened}/${x.requested}: ${x.rssMb.toFixed(1)}`, x.mbPerThousand.toFixed(1)]),
    ];
  };
  const stepHead = Array.from({ length: stepCount }, (_, k) => [`streams open, step ${k + 1}: RSS`, 'MB/1000']).flat();
  out.push(
    table(
      ['', 'idle after start', 'at the end of the load', `${AFTER_LOAD_SECONDS} s after the load`, 'before streams', ...stepHead],
      names.map((n) => {
        const t = r.targets[n]!;
        return [
          n,
          Number.isFinite(t.idleRssMb) ? t.idleRssMb.toFixed(1) : '',
          t.afterLoadRssMb?.toFixed(1) ?? '',
          t.idleAfterLoadRssMb?.toFixed(1) ?? '',
          ...steps(n),
        ];
      }),
    ),
  );

  out.push(
    heading(`Chunk by chunk: paced stream, word 1 at once then one every ${PACE_MS} ms; median ms until each word reaches the client`),
  );
  const dw = r.chunks[NAMES.direct];
  out.push(
    table(
      ['', ...Array.from({ length: PACE_WORDS }, (_, k) => `w${k + 1}`), 'worst lag vs direct'],
      main.map((n) => {
        const c = r.chunks[n];
        if (c === undefined || !c.ok) return [n, 'fails', ...Array<string>(PACE_WORDS).fill('')];
        const lag = dw?.ok ? Math.max(...c.value.wordMs.map((t, k) => t - dw.value.wordMs[k]!)) : NaN;
        return [n, ...c.value.wordMs.map((t) => t.toFixed(2)), n === NAMES.direct ? '' : signed(lag)];
      }),
    ),
  );

  if (r.telemetry !== null) {
    const t = r.telemetry;
    out.push(heading('Metrics and request log overhead (switchyard)'));
    const sy = r.targets[NAMES.switchyard]?.saturation.nonStreamed;
    const base = sy?.ok ? sy.value.cpuUsPerResponse : NaN;
    const share = (us: number): string => (Number.isFinite(base) ? `${((us / base) * 100).toFixed(1)} %` : '');
    const rows = [
      ['in process: metrics', t.inProcessUs.metrics.toFixed(2), share(t.inProcessUs.metrics)],
      ['in process: request log', t.inProcessUs.log.toFixed(2), share(t.inProcessUs.log)],
      ['in process: both', t.inProcessUs.both.toFixed(2), share(t.inProcessUs.both)],
    ];
    if (t.endToEnd.ok)
      rows.push([
        `end to end: on (${t.endToEnd.value.onUs.toFixed(0)} µs) − off (${t.endToEnd.value.offUs.toFixed(0)} µs)`,
        (t.endToEnd.value.onUs - t.endToEnd.value.offUs).toFixed(1),
        share(t.endToEnd.value.onUs - t.endToEnd.value.offUs),
      ]);
    out.push(table(['', 'CPU µs per request', `% of switchyard's ${Number.isFinite(base) ? base.toFixed(0) : '?'} µs per response`], rows));
    out.push('The in-process figure is exact; the end-to-end one is a difference of two noisy measurements (cheapest slice each).');
  }

  out.push(heading(`switchyard --workers (CLI \`serve\`, unpinned, ${r.options.connections} connections, non-streamed)`));
  if (r.workers.runs.length === 0) out.push(`skipped: ${r.workers.skipped ?? 'nothing to run'}`);
  else {
    const per = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : v.toFixed(2));
    out.push(
      table(
        [
          '',
          'best /s',
          'gateway CPU µs/resp',
          'Postgres+Redis CPU µs/resp',
          'Redis cmds/resp',
          'PG stmts/resp',
          'p50',
          'p99',
          '1 conn. p50',
          '1 conn. p99',
        ],
        r.workers.runs.map((w) =>
          w.result.ok
            ? [
                w.label,
                int(w.result.value.rps),
                w.result.value.gatewayCpuUs.toFixed(0),
                w.result.value.storeCpuUs.toFixed(0),
                per(w.result.value.redisCommands),
                per(w.result.value.postgresStatements),
                ms(w.result.value.p50Ms),
                ms(w.result.value.p99Ms),
                ms(w.result.value.oneConnectionP50Ms),
                ms(w.result.value.oneConnectionP99Ms),
              ]
            : [
                w.label,
                w.result.reason.startsWith('skipped') ? 'skipped (below)' : failed(w.label, w.result.reason),
                '',
                '',
                '',
                '',
                '',
                '',
                '',
                '',
              ],
        ),
      ),
    );
    for (const w of r.workers.runs) if (!w.result.ok && w.result.reason.startsWith('skipped')) out.push(`  ${w.label}: ${w.result.reason}`);
    flushReasons();
    const sqlite = r.workers.runs.find((w) => w.store === 'sqlite' && w.workers === 1)?.result;
    const fleet = r.workers.runs.find((w) => w.store === 'postgres+redis' && w.workers === 1)?.result;
    if (sqlite?.ok && fleet?.ok) {
      const s = sqlite.value;
      const f = fleet.value;
      out.push(
        `The shared store's overhead per request (Postgres + Redis vs SQLite, one worker): gateway CPU ${us(f.gatewayCpuUs - s.gatewayCpuUs)} µs, plus ${f.storeCpuUs.toFixed(0)} µs in Postgres and Redis; latency at 1 connection ${signed(f.oneConnectionP50Ms - s.oneConnectionP50Ms)} ms at p50, ${signed(f.oneConnectionP99Ms - s.oneConnectionP99Ms)} ms at p99.`,
      );
    }
  }
  return out.join('\n');
}
