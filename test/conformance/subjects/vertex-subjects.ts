import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vertexAdapter } from '../../../src/providers/vertex/vertex-adapter.ts';
import { writeTestServiceAccount, type TestServiceAccount } from '../../support/google-service-account.ts';
import type { ConformanceSubject, RecordedUpstreamRequest, RequestCheck, Upstream } from '../conformance-types.ts';
import { startAnthropicUpstream } from '../upstreams/anthropic-upstream.ts';
import { startGeminiUpstream } from '../upstreams/gemini-upstream.ts';
import { checkAnthropicBody } from './anthropic-subject.ts';
import { checkGeminiBody } from './google-subject.ts';

// The vertex adapter's two publishers, each against its publisher's emulator reached under
// Vertex AI's paths: the bodies are Gemini's and Anthropic's own (checked as at those
// vendors), the URL, the envelope and the credentials are Vertex's. Each subject's service
// account is a key generated for this process; the emulator verifies the bearer JWT it signs.

const PROJECT = 'switchyard-test-project';
const REGION = 'us-east5';
const GEMINI_MODEL = 'gemini-3-flash-preview';
const CLAUDE_MODEL = 'claude-sonnet-4-5@20250929';

/** A service account whose key file is written when the subject's upstream starts (the path is known before). */
function serviceAccount(name: string): { keyFile: string; create: () => TestServiceAccount } {
  const unique = `switchyard-${name}-${process.pid}`;
  return {
    keyFile: join(tmpdir(), `${unique}-service-account.json`),
    create: () => writeTestServiceAccount(tmpdir(), unique),
  };
}

function checkVertexPath(received: RecordedUpstreamRequest, publisher: string, model: string, method: string): void {
  assert.equal(
    received.path,
    `/v1/projects/${PROJECT}/locations/${REGION}/publishers/${publisher}/models/${encodeURIComponent(model)}:${method}`,
  );
  assert.match(String(received.headers.authorization), /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  assert.equal(received.headers['x-goog-api-key'], undefined);
  assert.equal(received.headers['x-api-key'], undefined);
}

/**
 * The upstream as the subject sees it: at `origin` (the Gemini emulator's base URL names its
 * API version; Vertex's paths start at the origin), its key file removed when it closes.
 */
function vertexUpstream(upstream: Upstream, keyFile: string, atOrigin: boolean): Upstream {
  return {
    baseUrl: atOrigin ? new URL(upstream.baseUrl).origin : upstream.baseUrl,
    scriptable: upstream.scriptable,
    script: (step) => upstream.script(step),
    requests: () => upstream.requests(),
    reset: () => upstream.reset(),
    close: async () => {
      await upstream.close();
      rmSync(keyFile, { force: true });
    },
  };
}

const GEMINI_ACCOUNT = serviceAccount('vertex-gemini');
const CLAUDE_ACCOUNT = serviceAccount('vertex-claude');

export const VERTEX_GEMINI_SUBJECT: ConformanceSubject = {
  name: 'vertex (google profile)',
  provider: 'vertex',
  adapter: vertexAdapter,
  config: {
    id: 'vertex',
    kind: 'vertex',
    name: 'Vertex AI',
    timeoutMs: 10_000,
    cacheFamily: 'none',
    profile: 'google',
    project: PROJECT,
    region: REGION,
    credentialsFile: GEMINI_ACCOUNT.keyFile,
  },
  upstreamModel: GEMINI_MODEL,
  async startUpstream(): Promise<Upstream> {
    const account = GEMINI_ACCOUNT.create();
    return vertexUpstream(await startGeminiUpstream({ vertexCredentials: account }), account.keyFile, true);
  },
  checkRequest(check: RequestCheck): void {
    checkVertexPath(check.received, 'google', GEMINI_MODEL, check.request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent');
    checkGeminiBody(check);
  },
  reasoningText: true,
  providerParameters: [],
  skips: {},
};

export const VERTEX_ANTHROPIC_SUBJECT: ConformanceSubject = {
  name: 'vertex (anthropic profile)',
  provider: 'vertex',
  adapter: vertexAdapter,
  config: {
    id: 'vertex-claude',
    kind: 'vertex',
    name: 'Vertex AI (Claude)',
    timeoutMs: 10_000,
    cacheFamily: 'cache_control',
    profile: 'anthropic',
    project: PROJECT,
    region: REGION,
    credentialsFile: CLAUDE_ACCOUNT.keyFile,
  },
  upstreamModel: CLAUDE_MODEL,
  async startUpstream(): Promise<Upstream> {
    const account = CLAUDE_ACCOUNT.create();
    return vertexUpstream(await startAnthropicUpstream({ vertexCredentials: account }), account.keyFile, false);
  },
  checkRequest(check: RequestCheck): void {
    const { received } = check;
    checkVertexPath(received, 'anthropic', CLAUDE_MODEL, check.request.stream ? 'streamRawPredict' : 'rawPredict');
    assert.equal(received.body.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in received.body, false, 'the URL names the model, not the body');
    // Past the envelope, the body is the one Anthropic gets (whose check names its own model).
    checkAnthropicBody({ ...check, received: { ...received, body: { ...received.body, model: 'claude-sonnet-4-5' } } });
  },
  reasoningText: true,
  providerParameters: [],
  skips: {
    'audio-input': 'Anthropic models take no audio',
  },
};
