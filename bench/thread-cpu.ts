// npm run bench:threads — where a response's CPU goes, by thread: the event loop, the worker
// threads (switchyard's SQLite writer), V8's GC and compiler threads. The bare proxy and
// switchyard (as `npm start` runs it, every promise on) in front of the bench upstream,
// pinned as in `npm run bench` (the server on CPU 1, upstream and load on CPU 0), each
// saturated at 64 connections, non-streamed then streamed. Ticks are 10 ms: a slice of a few
// seconds gives figures to about a µs per response.
//
//   node bench/thread-cpu.ts [--seconds S] [--rounds N]

import { parseArgs } from 'node:util';
import { checkTarget, warmUp } from './lib/measure.ts';
import { hasTaskset, killAll, setAffinity, stopChild } from './lib/processes.ts';
import { perResponseUs, threadCpuSeconds, type ThreadKind } from './lib/thread-cpu.ts';
import { startBareProxy, startSwitchyard, startUpstream, type Target } from './lib/targets.ts';
import { saturate, throughputSlice } from './lib/throughput.ts';

const { values: flags } = parseArgs({ options: { seconds: { type: 'string' }, rounds: { type: 'string' } } });
const seconds = Number(flags.seconds ?? 3);
const rounds = Number(flags.rounds ?? 3);
const log = (m: string): void => void process.stderr.write(`${m}\n`);

try {
  const upstream = await startUpstream();
  const upstreamOrigin = `http://127.0.0.1:${upstream.info.port}`;
  const proxy = await startBareProxy(upstreamOrigin);
  const switchyard = await startSwitchyard(upstreamOrigin);
  if (hasTaskset()) {
    setAffinity(upstream.pid, '0');
    setAffinity(proxy.target.pid, '1');
    setAffinity(switchyard.target.pid, '1');
  }
  for (const stream of [false, true]) {
    log(`${stream ? 'streamed' : 'non-streamed'}, 64 connections, ${rounds} × ${seconds} s: CPU µs per response by thread`);
    for (const target of [proxy.target, switchyard.target] as Target[]) {
      const bad = await checkTarget(target, stream);
      if (bad !== null) throw new Error(bad);
      await warmUp(target, 500);
      await saturate(target, stream, 64, 2);
      const before = threadCpuSeconds(target.pid);
      let responses = 0;
      for (let r = 0; r < rounds; r++)
        responses += (await throughputSlice(target, { stream, connections: 64, seconds, upstreamPid: upstream.pid })).completed;
      const split = perResponseUs(before, threadCpuSeconds(target.pid), responses);
      const total = split.reduce((sum, [, us]) => sum + us, 0);
      const parts = split.filter(([, us]) => us > 0).map(([kind, us]: [ThreadKind, number]) => `${kind} ${us.toFixed(1)}`);
      log(`  ${target.name.padEnd(12)} ${total.toFixed(1).padStart(6)} µs = ${parts.join(' + ')}   (${responses} responses)`);
    }
  }
  await Promise.all([stopChild(switchyard.child), stopChild(proxy.child), stopChild(upstream)]);
} finally {
  killAll();
}
