// Preloaded with bench/gc-observer.ts into a benchmarked gateway when ALLOC_PROFILE names a
// file (bench/memory-probe.ts with PROBE_ALLOC_PROFILE): V8's sampling heap profiler,
// counting also the objects scavenges and mark-compacts collected, from the first SIGUSR2
// (the probe's idle report) to the second (after the non-streamed load), written to the
// file, then from the second to the third (the streamed load), written to <file>.streamed.
// The profile (.heapprofile, Chrome DevTools' format) says which functions allocate per
// request; `node bench/alloc-summary.ts <file> <requests>` lists them.

import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const out = process.env.ALLOC_PROFILE;
if (out !== undefined && out !== '') {
  const session = new Session();
  session.connect();
  const start = (): void =>
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  let signals = 0;
  process.on('SIGUSR2', () => {
    signals++;
    if (signals === 1) start();
    else if (signals <= 3) {
      const file = signals === 2 ? out : `${out}.streamed`;
      session.post('HeapProfiler.stopSampling', (err, res) => {
        if (err === null) writeFileSync(file, JSON.stringify((res as { profile: unknown }).profile));
        if (signals === 2) start();
      });
    }
  });
}
