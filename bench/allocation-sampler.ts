// Preloaded with bench/gc-observer.ts into a benchmarked gateway when ALLOC_PROFILE names a
// file (bench/memory-probe.ts with PROBE_ALLOC_PROFILE): V8's sampling heap profiler,
// counting also the objects scavenges and mark-compacts collected, from the first SIGUSR2
// (the probe's idle report) to the second (after the non-streamed load). The profile
// (.heapprofile, Chrome DevTools' format) says which functions allocate per request.

import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const out = process.env.ALLOC_PROFILE;
if (out !== undefined && out !== '') {
  const session = new Session();
  session.connect();
  let signals = 0;
  process.on('SIGUSR2', () => {
    signals++;
    if (signals === 1) {
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else if (signals === 2) {
      session.post('HeapProfiler.stopSampling', (err, res) => {
        if (err === null) writeFileSync(out, JSON.stringify((res as { profile: unknown }).profile));
      });
    }
  });
}
