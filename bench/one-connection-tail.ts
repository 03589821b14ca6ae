// node bench/one-connection-tail.ts [CHECKOUT] [SAMPLES]
//
// The one-connection tail of one checkout's gateway alone: SAMPLES (default 10,000)
// sequential non-streamed requests on one keep-alive connection through switchyard as the
// bench starts it (bench/lib/targets.ts), each timed send → last byte, after 500 to warm
// up; prints p50 … max as JSON, per request and corrected for coordinated omission as wrk
// corrects it (`corrected`; this checkout's bench/lib/latency.ts measures, whatever CHECKOUT).
// CHECKOUT (default this one) is the root of a checkout whose gateway to run, e.g. a `git
// archive` of the commit before a change (its node_modules linked to this one's): runs of
// two checkouts, taken in turns, compare their tails in ~15 s each.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const samples = Number(process.argv[3] ?? 10_000);
const { startUpstream, startSwitchyard } = await import(`${root}/bench/lib/targets.ts`);
const { latencyAtOneConnection } = await import('./lib/latency.ts');
const { killAll } = await import(`${root}/bench/lib/processes.ts`);
try {
  const upstream = await startUpstream();
  const gateway = await startSwitchyard(`http://127.0.0.1:${upstream.info.port}`);
  const stats = await latencyAtOneConnection([gateway.target], { stream: false, samplesPerTarget: samples, rounds: 1, warmup: 500 });
  const s = [...stats.values()][0]!;
  const corrected = s.corrected === undefined ? null : { p50: s.corrected.p50, p99: s.corrected.p99, p999: s.corrected.p999 };
  process.stdout.write(`${JSON.stringify({ checkout: root, ...s.latency, corrected, errors: s.errors, serverCpuUs: s.serverCpuUs })}\n`);
} finally {
  killAll();
}
process.exit(0);
