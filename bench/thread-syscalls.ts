// System calls and CPU per response, by thread (docs/benchmarks.md, "Fifth round"): the bare
// proxy and switchyard (this checkout's, or --root's) in front of the bench upstream, unpinned
// as the budget runs, one slice of the proxy and two of switchyard, each thread's write and
// read system calls (/proc/<pid>/task/<tid>/io: syscw, syscr; a socket, file or eventfd write
// each counts) and CPU per response. Threads of one name are summed; BYTID=1 lists each.
// CONNS=1 measures one connection instead of 64.
//
//   node bench/thread-syscalls.ts [--stream] [--root CHECKOUT] [--seconds S]
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { warmUp } from './lib/measure.ts';
import { killAll, stopChild } from './lib/processes.ts';
import { startBareProxy, startSwitchyard, startUpstream, type Target } from './lib/targets.ts';
import { throughputSlice } from './lib/throughput.ts';

const { values: flags } = parseArgs({ options: { stream: { type: 'boolean' }, root: { type: 'string' }, seconds: { type: 'string' } } });
const stream = flags.stream === true;
function threads(pid: number): Map<string, { name: string; syscw: number; syscr: number; cpu: number }> {
  const out = new Map<string, { name: string; syscw: number; syscr: number; cpu: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const io: Record<string, number | undefined> = Object.fromEntries(
        readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(': '))
          .map(([k, v]): [string, number] => [k ?? '', Number(v)]),
      );
      const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, syscw: io.syscw ?? 0, syscr: io.syscr ?? 0, cpu: (Number(f[11]) + Number(f[12])) * 10_000 });
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}
async function probe(t: Target, upstreamPid: number) {
  const a = threads(t.pid);
  const s = await throughputSlice(t, {
    stream,
    connections: Number(process.env.CONNS ?? 64),
    seconds: Number(flags.seconds ?? 3),
    upstreamPid,
  });
  const b = threads(t.pid);
  const by = new Map<string, { w: number; r: number; cpu: number }>();
  for (const [tid, x] of b) {
    const y = a.get(tid) ?? { syscw: 0, syscr: 0, cpu: 0 };
    const key = process.env.BYTID ? `${x.name}:${tid}` : x.name.replace(/\d+$/, '#');
    const e = by.get(key) ?? { w: 0, r: 0, cpu: 0 };
    e.w += x.syscw - y.syscw;
    e.r += x.syscr - y.syscr;
    e.cpu += x.cpu - y.cpu;
    by.set(key, e);
  }
  process.stdout.write(`${t.name}: ${s.completed} responses, ${s.cpuUsPerResponse.toFixed(0)} µs/resp\n`);
  for (const [k, e] of by)
    if (e.w + e.r + e.cpu > 0)
      process.stdout.write(
        `  ${k.padEnd(20)} writes/resp ${(e.w / s.completed).toFixed(2)}  reads/resp ${(e.r / s.completed).toFixed(2)}  cpu µs/resp ${(e.cpu / s.completed).toFixed(1)}\n`,
      );
}
try {
  const upstream = await startUpstream();
  const origin = `http://127.0.0.1:${upstream.info.port}`;
  const [proxy, sw] = await Promise.all([
    startBareProxy(origin),
    startSwitchyard(origin, flags.root === undefined ? {} : { root: resolve(flags.root) }),
  ]);
  for (const t of [proxy.target, sw.target]) await warmUp(t, 500);
  await probe(proxy.target, upstream.pid);
  await probe(sw.target, upstream.pid);
  await probe(sw.target, upstream.pid);
  await Promise.all([stopChild(sw.child), stopChild(proxy.child), stopChild(upstream)]);
} finally {
  killAll();
}
