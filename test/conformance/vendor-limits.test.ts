import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inputKindsFor, OPENAI_PROFILES } from '../../src/providers/openai/openai-profiles.ts';
import { CONFORMANCE_CASES } from './conformance-cases.ts';
import type { ConformanceSubject, Upstream } from './conformance-types.ts';
import { ExecutorHarness } from './run-through-executor.ts';
import { OPENAI_SUBJECTS } from './subjects/openai-subjects.ts';
import { AZURE_PREVIEW_INPUT, contentRefusal, inputKinds, VENDOR_INPUT, type InputKind } from './upstreams/vendor-limits.ts';

// The gateway's vendor profiles claim the input kinds each vendor's chat API takes; the
// vendor emulators (upstreams/vendor-limits.ts) state them from the vendors' docs. The two
// must agree, or a profile would send what its vendor refuses (or refuse what it takes).

const PART: Readonly<Record<InputKind, unknown>> = {
  image: { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
  file: { type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', filename: 'a.pdf' } },
  audio: { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
};

const sorted = (kinds: Iterable<InputKind>) => [...kinds].sort();

describe('vendor input limits', () => {
  it('each profile claims exactly the input kinds its vendor takes', () => {
    for (const profile of OPENAI_PROFILES.values()) {
      assert.ok(VENDOR_INPUT[profile.name] !== undefined, `the emulator models ${profile.name}`);
      const provider = {
        id: 'p',
        kind: 'openai' as const,
        name: 'p',
        baseUrl: 'http://x',
        timeoutMs: 1,
        cacheFamily: 'prompt_cache_key' as const,
        profile: profile.name,
      };
      assert.deepEqual(sorted(inputKindsFor(profile, provider)), sorted(VENDOR_INPUT[profile.name]!), profile.name);
    }
  });

  it('azure takes files and audio only under a preview api_version, in the profile and the emulator alike', () => {
    const azure = OPENAI_PROFILES.get('azure')!;
    const preview = {
      id: 'p',
      kind: 'openai' as const,
      name: 'p',
      baseUrl: 'http://x',
      timeoutMs: 1,
      cacheFamily: 'prompt_cache_key' as const,
      profile: 'azure',
      options: { api_version: '2025-04-01-preview' },
    };
    const expected = sorted([...VENDOR_INPUT.azure!, ...AZURE_PREVIEW_INPUT]);
    assert.deepEqual(sorted(inputKindsFor(azure, preview)), expected);
    assert.deepEqual(sorted(inputKinds('azure', '/openai/deployments/d/chat/completions?api-version=2025-04-01-preview')), expected);
    assert.deepEqual(
      sorted(inputKinds('azure', '/openai/deployments/d/chat/completions?api-version=2024-10-21')),
      sorted(VENDOR_INPUT.azure!),
    );
  });

  it('the emulator refuses each kind a vendor does not take, and takes the others', () => {
    for (const [vendor, kinds] of Object.entries(VENDOR_INPUT)) {
      for (const kind of ['image', 'file', 'audio'] as const) {
        const body = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, PART[kind]] }] };
        const refused = contentRefusal(vendor, '/v1/chat/completions', body);
        if (kinds.includes(kind)) assert.equal(refused, null, `${vendor} takes ${kind}`);
        else assert.ok(refused !== null && refused.status >= 400 && refused.status < 500, `${vendor} refuses ${kind}`);
      }
    }
  });
});

describe('azure under a preview api_version, over HTTP', () => {
  const azure = OPENAI_SUBJECTS.find((s) => s.provider === 'azure')!;
  const preview: ConformanceSubject = { ...azure, config: { ...azure.config, options: { api_version: '2025-04-01-preview' } } };
  let upstream: Upstream;
  let harness: ExecutorHarness;
  before(async () => {
    upstream = await preview.startUpstream();
    harness = new ExecutorHarness(preview, upstream.baseUrl);
  });
  after(async () => {
    await harness.close();
    await upstream.close();
  });

  for (const c of CONFORMANCE_CASES.filter((x) => x.id === 'pdf-input' || x.id === 'audio-input')) {
    it(`${c.id} passes, though the GA api-version skips it`, async () => {
      assert.ok(azure.skips[c.id] !== undefined);
      upstream.reset();
      await c.run({ subject: preview, upstream, harness });
      assert.match(upstream.requests()[0]!.path, /api-version=2025-04-01-preview$/);
    });
  }
});
