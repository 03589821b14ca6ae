// npm run bench [-- --quick | --samples N | --connections N | --slice S | --rounds N | --streams N
//                  | --workers 1,2|none | --no-portkey | --no-pin | --profile | --markdown PATH]
//
// Side by side, in one run, interleaved: the upstream called directly, a bare Node proxy,
// Portkey's open-source gateway and switchyard with every promise on (bench/lib/switchyard-config.ts).
// Latency at 1 connection (sequential, ≥ 10,000 samples per target and mode) and at 64
// connections (saturation, every response timed); throughput on one core, streamed and
// not, with CPU per response; RSS idle and after load; each process's event-loop delay
// during the load; metrics overhead; switchyard's --workers 1|2 on SQLite and on
// Postgres + Redis; memory with open streams; chunk-by-chunk forwarding. Prints the
// issue's table (bench/lib/issue-table.ts) and the detail (bench/lib/report.ts), writes
// the raw figures to bench/results/latest.json. docs/benchmarks.md explains every figure.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AFTER_LOAD_SECONDS, issueRows, NOT_MEASURED, renderMarkdown, renderText } from './lib/issue-table.ts';
import { latencyAtOneConnection } from './lib/latency.ts';
import { readLoopDelay, resetLoopDelay, type LoopDelay } from './lib/loop-delay.ts';
import { checkTarget, chunkTiming, openStreamsMemory, warmUp } from './lib/measure.ts';
import { hasTaskset, isStopping, killAll, rssMb, setAffinity, stopChild, type Child } from './lib/processes.ts';
import { formatProfile, summarizeProfile } from './lib/profile.ts';
import { measureBudget, overBudget, renderBudget, type Baseline, type BudgetResult } from './lib/budget.ts';
import { detailReport } from './lib/report.ts';
import type { BenchResults, Measured, TargetResults } from './lib/results.ts';
import {
  directTarget,
  NAMES,
  releaseHeldStreams,
  startBareProxy,
  startIdleProbe,
  startPortkey,
  startSwitchyard,
  startUpstream,
  type Target,
} from './lib/targets.ts';
import { measureTelemetryInProcess } from './lib/telemetry-micro.ts';
import { saturate, throughputSlice, throughputStats, type ThroughputSlice } from './lib/throughput.ts';
import { workersPhase } from './lib/workers-phase.ts';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH, '..');
const RESULTS = join(BENCH, 'results');

// ------------------------------------------------------------------ options

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    samples: { type: 'string' },
    connections: { type: 'string' },
    slice: { type: 'string' },
    rounds: { type: 'string' },
    streams: { type: 'string' },
    workers: { type: 'string' },
    'no-portkey': { type: 'boolean' },
    'no-pin': { type: 'boolean' },
    profile: { type: 'boolean' },
    markdown: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (flags.help) {
  process.stdout.write(`npm run bench -- [options]   (each also as an env variable)
  --quick            smoke run (~1.5 min): 1,000 samples per target, short slices   BENCH_QUICK=1
  --samples N        requests per target and mode at 1 connection, and at least as many
                     timed responses at saturation (10000; quick 1000)   BENCH_SAMPLES
  --connections N    connections at saturation (64)                     BENCH_CONNECTIONS
  --slice S          seconds per saturation slice (3; quick 1)           BENCH_SLICE
  --rounds N         interleaved rounds (slices per target and mode) (4; quick 2)   BENCH_ROUNDS
  --streams N        open streams for the memory figure (1000; quick 500)   BENCH_STREAMS
  --workers LIST     switchyard --workers runs: 1,2 (default) or none     BENCH_WORKERS
  --no-portkey       leave Portkey's gateway out                          BENCH_PORTKEY=0
  --no-pin           do not pin processes to CPUs                         BENCH_PIN=0
  --profile          run switchyard under --cpu-prof and summarize the profile   BENCH_PROFILE=1
  --markdown PATH    also write the issue's table and the detail as markdown   BENCH_MARKDOWN
`);
  process.exit(0);
}
const env = process.env;
const quick = flags.quick === true || env.BENCH_QUICK === '1';
const num = (flag: string | undefined, envName: string, quickValue: number, fullValue: number): number => {
  const text = flag ?? env[envName];
  if (text === undefined || text === '') return quick ? quickValue : fullValue;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${envName} must be a positive number, got ${text}`);
  return n;
};
const workersText = flags.workers ?? env.BENCH_WORKERS ?? '1,2';
const opts = {
  quick,
  samples: Math.round(num(flags.samples, 'BENCH_SAMPLES', 1000, 10_000)),
  rounds: Math.round(num(flags.rounds, 'BENCH_ROUNDS', 2, 4)),
  connections: Math.round(num(flags.connections, 'BENCH_CONNECTIONS', 64, 64)),
  sliceSeconds: num(flags.slice, 'BENCH_SLICE', 1, 3),
  streams: Math.round(num(flags.streams, 'BENCH_STREAMS', 500, 1000)),
  streamsMaxWaitMs: quick ? 5000 : 10_000,
  paceRepeats: quick ? 5 : 15,
  workers:
    workersText === 'none'
      ? []
      : workersText
          .split(',')
          .map((w) => Number(w.trim()))
          .filter((w) => Number.isInteger(w) && w > 0),
  portkey: flags['no-portkey'] !== true && env.BENCH_PORTKEY !== '0',
  pin: flags['no-pin'] !== true && env.BENCH_PIN !== '0',
  profile: flags.profile === true || env.BENCH_PROFILE === '1',
  markdown: flags.markdown ?? env.BENCH_MARKDOWN,
};

const log = (m: string): void => void process.stderr.write(`${m}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmtInt = (v: number): string => Math.round(v).toLocaleString('en-US');
const fail = (reason: string): Measured<never> => ({ ok: false, reason });
const NOT_RUN = fail(NOT_MEASURED);

async function loopDelays(targets: readonly Target[]): Promise<Map<string, Measured<LoopDelay>>> {
  const out = new Map<string, Measured<LoopDelay>>();
  for (const t of targets) {
    if (t.proc === undefined) continue;
    try {
      out.set(t.name, { ok: true, value: await readLoopDelay(t.proc) });
    } catch (err) {
      out.set(t.name, fail((err as Error).message));
    }
  }
  return out;
}

async function main(): Promise<void> {
  const nCpu = availableParallelism();
  // At saturation, with two CPUs: this process and the upstream share CPU 0, the server
  // under test has CPU 1 to itself — "one core", as the goals are stated. With three or
  // more, the upstream gets a CPU of its own. The 1-connection phases run unpinned:
  // pinned, the direct call would run on one CPU and the proxied ones across two.
  const pin = opts.pin && nCpu >= 2 && hasTaskset();
  const cpuOf = pin ? { load: 0, upstream: nCpu >= 3 ? 1 : 0, server: nCpu - 1 } : null;
  const profileDir = join(RESULTS, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  if (opts.profile) mkdirSync(profileDir, { recursive: true });
  const startedAt = performance.now();
  const loadAverageAtStart = loadavg();
  log(
    `switchyard bench: ${nCpu} CPUs, node ${process.version}, ${quick ? `QUICK run (smoke test: ${opts.samples} samples per target, too few for p99.9)` : 'full run'}${pin ? `; at saturation: load generator on CPU ${cpuOf!.load}, upstream on CPU ${cpuOf!.upstream}, server under test on CPU ${cpuOf!.server}` : ', not pinned'}`,
  );

  // ---- start every target
  const upstream = await startUpstream();
  const upstreamOrigin = `http://127.0.0.1:${upstream.info.port}`;
  const children: Child<unknown>[] = [upstream];
  const startFailures = new Map<string, string>();
  const [proxy, portkey, switchyard, telemetryOff, idleProbe] = await Promise.all([
    startBareProxy(upstreamOrigin),
    opts.portkey
      ? startPortkey(upstreamOrigin).catch((err: Error) => void startFailures.set(NAMES.portkey, err.message))
      : Promise.resolve(undefined),
    startSwitchyard(upstreamOrigin, { nodeArgs: opts.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [] }),
    startSwitchyard(upstreamOrigin, { name: NAMES.telemetryOff, telemetry: 'off' }),
    startIdleProbe(),
  ]);
  for (const c of [proxy, portkey, switchyard, telemetryOff, idleProbe]) if (c) children.push(c.child);
  const idleLoopDelay: BenchResults['idleLoopDelay'] = { oneConnection: NOT_RUN, saturation: NOT_RUN };
  const direct = directTarget(upstream);
  const main4 = [direct, proxy.target, ...(portkey ? [portkey.target] : []), switchyard.target];
  const everyTarget = [...main4, telemetryOff.target];

  // ---- idle memory, before any request
  await sleep(1500);
  const idle = new Map(everyTarget.map((t) => [t.name, rssMb(t.pid)]));
  log(`idle RSS: ${everyTarget.map((t) => `${t.name} ${idle.get(t.name)!.toFixed(1)} MB`).join(', ')}`);

  // ---- each target must answer each kind; a target that cannot is measured for what it can do
  const broken = new Map<string, Map<boolean, string>>();
  for (const t of everyTarget) {
    for (const stream of [false, true]) {
      const bad = await checkTarget(t, stream);
      if (bad === null) continue;
      log(`  ${bad}`);
      if (!broken.has(t.name)) broken.set(t.name, new Map());
      broken.get(t.name)!.set(stream, bad);
    }
  }
  const can = (t: Target, stream: boolean): boolean => broken.get(t.name)?.get(stream) === undefined;

  const targets: Record<string, TargetResults> = {};
  for (const t of everyTarget) {
    targets[t.name] = {
      idleRssMb: idle.get(t.name)!,
      afterLoadRssMb: null,
      idleAfterLoadRssMb: null,
      oneConnection: { nonStreamed: NOT_RUN, streamed: NOT_RUN },
      saturation: { nonStreamed: NOT_RUN, streamed: NOT_RUN },
      loopDelay: { oneConnection: NOT_RUN, saturation: NOT_RUN },
    };
  }
  const modeKey = (stream: boolean) => (stream ? 'streamed' : 'nonStreamed');
  const brokenReason = (t: Target, stream: boolean): Measured<never> => fail(broken.get(t.name)?.get(stream) ?? 'failed');

  // ---- open streams (memory per stream: after a warm-up, before the load grows the heaps) and chunk by chunk
  const openStreams: BenchResults['openStreams'] = {};
  for (const t of main4.slice(1)) {
    if (!can(t, true)) {
      openStreams[t.name] = brokenReason(t, true);
      continue;
    }
    await warmUp(t, 400);
    log(`opening ${opts.streams} held streams through ${t.name}...`);
    const s = await openStreamsMemory(t, opts.streams, opts.streamsMaxWaitMs, async () => void (await releaseHeldStreams(upstreamOrigin)));
    openStreams[t.name] = { ok: true, value: s };
    log(
      `  RSS before ${s.rssBeforeMb.toFixed(1)} MB; ${s.steps.map((x) => `${x.opened}/${x.requested} open: ${x.rssMb.toFixed(1)} MB`).join('; ')}`,
    );
  }
  const chunks: BenchResults['chunks'] = {};
  for (const t of main4)
    chunks[t.name] = can(t, true) ? { ok: true, value: await chunkTiming(t, opts.paceRepeats) } : brokenReason(t, true);

  // ---- latency at 1 connection, unpinned
  for (const t of [...main4, idleProbe.target]) await resetLoopDelay(t.proc!);
  for (const stream of [false, true]) {
    const able = main4.filter((t) => can(t, stream));
    log(
      `latency at 1 connection, ${stream ? 'streamed' : 'non-streamed'}: ${opts.samples} requests per target in ${opts.rounds} interleaved rounds...`,
    );
    const m = await latencyAtOneConnection(able, {
      stream,
      samplesPerTarget: opts.samples,
      rounds: opts.rounds,
      warmup: quick ? 100 : 300,
    });
    for (const t of main4) {
      const s = m.get(t.name);
      targets[t.name]!.oneConnection[modeKey(stream)] =
        s === undefined
          ? brokenReason(t, stream)
          : s.latency.samples === 0
            ? fail(`every request failed (${s.errors})`)
            : { ok: true, value: s };
      if (s !== undefined)
        log(
          `  ${t.name}: p50 ${s.latency.p50.toFixed(3)} p99 ${s.latency.p99.toFixed(3)} p99.9 ${s.latency.p999.toFixed(3)} max ${s.latency.max.toFixed(1)} ms (${s.latency.samples} samples, ${s.errors} errors)`,
        );
    }
  }
  for (const [name, d] of await loopDelays(main4)) targets[name]!.loopDelay.oneConnection = d;
  idleLoopDelay.oneConnection = (await loopDelays([idleProbe.target])).get(NAMES.idle)!;

  // ---- saturation, pinned: throughput, CPU per response, latency at N connections
  if (cpuOf !== null) {
    const ok =
      setAffinity(process.pid, String(cpuOf.load)) &&
      setAffinity(upstream.pid, String(cpuOf.upstream)) &&
      everyTarget.slice(1).every((t) => setAffinity(t.pid, String(cpuOf.server)));
    if (!ok) log('could not pin every process; the saturation figures are not pinned');
  }
  for (const t of [...everyTarget, idleProbe.target]) await resetLoopDelay(t.proc!);
  for (const stream of [false, true]) {
    const label = stream ? 'streamed' : 'non-streamed';
    // switchyard with telemetry off takes part in the non-streamed saturation only (the metrics overhead).
    const able = (stream ? main4 : everyTarget).filter((t) => can(t, stream));
    log(`saturation, ${label}: ${opts.connections} connections, ${opts.rounds} rounds of ${opts.sliceSeconds} s per target...`);
    const slices = new Map<string, ThroughputSlice[]>(able.map((t) => [t.name, []]));
    for (const t of able) await saturate(t, stream, opts.connections, quick ? 0.5 : 1);
    const sliceOf = async (t: Target): Promise<void> => {
      await sleep(100);
      slices
        .get(t.name)!
        .push(await throughputSlice(t, { stream, connections: opts.connections, seconds: opts.sliceSeconds, upstreamPid: upstream.pid }));
    };
    // The targets take turns (order reversed every other round), so a slow spell falls on all.
    for (let round = 0; round < opts.rounds; round++) for (const t of round % 2 === 0 ? able : [...able].reverse()) await sliceOf(t);
    // Enough timed responses for the percentiles: a slow target gets extra slices.
    for (const t of able) {
      for (let extra = 0; extra < 6 && slices.get(t.name)!.reduce((n, s) => n + s.latencyMs.length, 0) < opts.samples; extra++)
        await sliceOf(t);
    }
    for (const t of everyTarget) {
      if (!slices.has(t.name)) {
        if (!can(t, stream)) targets[t.name]!.saturation[modeKey(stream)] = brokenReason(t, stream);
        continue;
      }
      const r = throughputStats(slices.get(t.name)!);
      targets[t.name]!.saturation[modeKey(stream)] =
        r.completed === 0 ? fail(`no response completed (${r.failures} failures)`) : { ok: true, value: r };
      log(
        `  ${t.name}: best ${fmtInt(r.rps)}/s (slices ${r.slices.map((x) => fmtInt(x.rps)).join(', ')}), ${r.cpuUsPerResponse.toFixed(0)} µs CPU per response, p50 ${r.latency.p50.toFixed(2)} p99 ${r.latency.p99.toFixed(2)} max ${r.latency.max.toFixed(1)} ms (${r.latency.samples} samples, ${r.failures} failures)`,
      );
    }
  }
  for (const t of everyTarget) targets[t.name]!.afterLoadRssMb = rssMb(t.pid);
  const loadEnded = Date.now();
  for (const [name, d] of await loopDelays(everyTarget)) targets[name]!.loopDelay.saturation = d;
  idleLoopDelay.saturation = (await loopDelays([idleProbe.target])).get(NAMES.idle)!;
  await stopChild(idleProbe.child);
  if (cpuOf !== null) for (const pid of [process.pid, ...children.map((c) => c.pid)]) setAffinity(pid, `0-${nCpu - 1}`);
  await sleep(Math.max(0, loadEnded + AFTER_LOAD_SECONDS * 1000 - Date.now()));
  for (const t of everyTarget) targets[t.name]!.idleAfterLoadRssMb = rssMb(t.pid);
  await stopChild(telemetryOff.child);

  // ---- the standing budget (bench/lib/budget.ts): plain, streamed, tool-heavy; unpinned, as the test measures it
  log('budget: CPU per request at 1 and at 64 connections, switchyard and the bare proxy, three kinds of request...');
  let budget: BudgetResult | null = null;
  try {
    budget = await measureBudget(proxy.target, switchyard.target, {
      oneConnectionRequests: quick ? 1000 : 3000,
      connections: opts.connections,
      sliceSeconds: opts.sliceSeconds,
      rounds: quick ? 3 : 4,
      upstreamPid: upstream.pid,
      log,
    });
  } catch (err) {
    log(`budget failed: ${(err as Error).message}`);
  }

  // ---- metrics overhead in process (this process is idle now)
  const micro = new Map(measureTelemetryInProcess(quick ? 50_000 : 200_000).map((r) => [r.variant, r.usPerRequest]));
  const on = targets[NAMES.switchyard]!.saturation.nonStreamed;
  const off = targets[NAMES.telemetryOff]!.saturation.nonStreamed;
  const telemetry = {
    inProcessUs: {
      metrics: micro.get('metrics')! - micro.get('off')!,
      log: micro.get('log')! - micro.get('off')!,
      both: micro.get('on')! - micro.get('off')!,
    },
    endToEnd:
      on.ok && off.ok
        ? { ok: true as const, value: { onUs: on.value.cpuUsPerResponse, offUs: off.value.cpuUsPerResponse } }
        : fail('a saturation run failed'),
  };

  // switchyard writes its CPU profile on a clean exit: give it time.
  await Promise.all([
    stopChild(switchyard.child, opts.profile ? 30_000 : 5000),
    stopChild(proxy.child),
    ...(portkey ? [stopChild(portkey.child)] : []),
  ]);

  // ---- workers: the CLI's --workers on SQLite and on Postgres + Redis (the machine is free of the others now)
  let workers: BenchResults['workers'] = { runs: [], skipped: 'not asked (--workers none)' };
  if (opts.workers.length > 0) {
    workers = await workersPhase({
      upstreamOrigin,
      upstreamPid: upstream.pid,
      workers: opts.workers,
      connections: opts.connections,
      sliceSeconds: opts.sliceSeconds,
      rounds: opts.rounds,
      samples: Math.min(opts.samples, quick ? 500 : 5000),
      log,
    });
    for (const r of workers.runs)
      log(
        `  ${r.label}: ${r.result.ok ? `${fmtInt(r.result.value.rps)}/s, ${r.result.value.gatewayCpuUs.toFixed(0)} + ${r.result.value.storeCpuUs.toFixed(0)} µs CPU per response` : r.result.reason}`,
      );
  }
  await stopChild(upstream);

  for (const [name, why] of startFailures) {
    log(`${name} did not start: ${why}`);
    const none = fail(`did not start: ${why}`);
    targets[name] = {
      idleRssMb: NaN,
      afterLoadRssMb: null,
      idleAfterLoadRssMb: null,
      oneConnection: { nonStreamed: none, streamed: none },
      saturation: { nonStreamed: none, streamed: none },
      loopDelay: { oneConnection: none, saturation: none },
    };
  }
  const results: BenchResults = {
    machine: {
      cpus: nCpu,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      pinned: cpuOf,
      date: new Date().toISOString(),
      git: gitState(),
      loadAverageAtStart,
      loadAverage: loadavg(),
    },
    options: {
      quick,
      samples: opts.samples,
      rounds: opts.rounds,
      connections: opts.connections,
      sliceSeconds: opts.sliceSeconds,
      throughputRounds: opts.rounds,
    },
    targets,
    idleLoopDelay,
    telemetry,
    workers,
    openStreams,
    chunks,
    budget,
  };
  const rows = issueRows(results);
  const minutes = (performance.now() - startedAt) / 60_000;
  process.stdout.write(
    `\n${quick ? 'QUICK RUN (smoke test): fewer than 10,000 samples per target; p99.9 and max are not meaningful.\n' : ''}`,
  );
  process.stdout.write(
    `The issue's table (issue 14), re-measured — ${results.machine.date}, commit ${results.machine.git}, ${minutes.toFixed(1)} min\n\n${renderText(rows)}\n`,
  );
  process.stdout.write(`${detailReport(results, 'text')}\n`);
  if (budget !== null) {
    const baseline = JSON.parse(readFileSync(join(BENCH, 'baseline.json'), 'utf8')) as Baseline;
    const over = overBudget(budget, baseline);
    process.stdout.write(
      `\nThe standing budget (bench/baseline.json; unpinned): CPU µs per request, switchyard (bare proxy)\n${renderBudget(budget, baseline)}\n${over.length === 0 ? 'every case within the budget' : `over the budget:\n  ${over.join('\n  ')}`}\n`,
    );
  }

  if (opts.profile) {
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    const newest = files.map((f) => join(profileDir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (newest === undefined) log('no CPU profile was written (did switchyard exit cleanly?)');
    else {
      results.profile = newest;
      process.stdout.write(`\nswitchyard CPU profile (whole run): ${newest}\n${formatProfile(summarizeProfile(newest, ROOT, 30))}\n`);
    }
  }
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  log(`raw figures: ${join(RESULTS, 'latest.json')}`);
  if (opts.markdown !== undefined) {
    writeFileSync(opts.markdown, `${renderMarkdown(rows)}\n\n${detailReport(results, 'markdown')}\n`);
    log(`markdown: ${opts.markdown}`);
  }
}

/** The commit measured, and whether the working tree had changes. */
function gitState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} with uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

main().catch((err: unknown) => {
  // A signal is stopping the run: its handler ends the children and this process.
  if (isStopping()) return;
  log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  killAll();
  process.exit(1);
});
