import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFORMANCE_CASES } from './conformance-cases.ts';
import { canonicalRequest, PDF_BASE64, PNG_BASE64, user, WAV_BASE64 } from './conformance-fixtures.ts';
import type { CaseId, ConformanceSubject, Upstream } from './conformance-types.ts';
import { ExecutorHarness } from './run-through-executor.ts';
import { ALL_SUBJECTS } from './subjects/all-subjects.ts';
import type { UserContentPart } from '../../src/canonical/request.ts';

// A skip is a claim that the subject cannot do what the case asks. Each skipped case is run
// here anyway and must fail: a skip whose case passes is a capability the docs hide, or a
// limit the emulator does not model. For content an HTTP adapter's endpoint cannot carry,
// the promise in docs/errors.md is checked too: nothing is sent, and the failure is
// `unsupported_content`, streamed or not.

const CONTENT: Readonly<Partial<Record<CaseId, UserContentPart>>> = {
  'image-input': { type: 'image', url: `data:image/png;base64,${PNG_BASE64}` },
  'pdf-input': { type: 'file', data: PDF_BASE64, mediaType: 'application/pdf', filename: 'report.pdf' },
  'audio-input': { type: 'audio', data: WAV_BASE64, format: 'wav' },
};

function skippedCases(subject: ConformanceSubject) {
  return CONFORMANCE_CASES.filter((c) => subject.skips[c.id] !== undefined);
}

for (const subject of ALL_SUBJECTS.filter((s) => skippedCases(s).length > 0)) {
  describe(`skips are real: ${subject.name}`, () => {
    let upstream: Upstream;
    let harness: ExecutorHarness;
    before(async () => {
      upstream = await subject.startUpstream();
      harness = new ExecutorHarness(subject, upstream.baseUrl);
    });
    after(async () => {
      await harness.close();
      await upstream.close();
    });

    for (const c of skippedCases(subject)) {
      const reason = subject.skips[c.id]!;
      it(`${c.id} fails when run, as its skip says: ${reason}`, async () => {
        upstream.reset();
        await assert.rejects(c.run({ subject, upstream, harness }), `${subject.name} passes ${c.id}, which it skips ("${reason}")`);
      });

      const part = CONTENT[c.id];
      if (part === undefined || subject.adapter.transport !== 'http') continue;
      it(`${c.id}: the content is refused as unsupported_content with nothing sent, streamed or not`, async () => {
        for (const stream of [false, true]) {
          upstream.reset();
          const result = await harness.run(canonicalRequest({ messages: [user('What is this?', part)], stream }));
          assert.equal(result.error?.code, 'unsupported_content', `stream=${stream}: ${result.error?.message}`);
          assert.equal(result.error?.status, 400);
          assert.equal(upstream.requests().length, 0, `stream=${stream}: nothing reached the upstream`);
          assert.equal(result.parts.length, 0);
        }
      });
    }
  });
}
