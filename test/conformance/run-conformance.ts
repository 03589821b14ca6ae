// Registers one subject's run of every case with node:test: a describe per subject, a test
// per case, skipped cases shown as skipped with their reason.

import { after, before, beforeEach, describe, it } from 'node:test';
import { CONFORMANCE_CASES } from './conformance-cases.ts';
import type { ConformanceSubject, Upstream } from './conformance-types.ts';
import { ExecutorHarness } from './run-through-executor.ts';

export function runConformance(subject: ConformanceSubject): void {
  describe(`conformance: ${subject.name}`, () => {
    let upstream: Upstream | undefined;
    let harness: ExecutorHarness | undefined;
    before(async () => {
      upstream = await subject.startUpstream();
      harness = new ExecutorHarness(subject, upstream.baseUrl);
    });
    after(async () => {
      await harness?.close();
      await upstream?.close();
    });
    beforeEach(() => upstream?.reset());
    for (const c of CONFORMANCE_CASES) {
      const skip = subject.skips[c.id];
      it(`${c.id}: ${c.title}`, skip === undefined ? {} : { skip }, () => c.run({ subject, upstream: upstream!, harness: harness! }));
    }
  });
}
