// The bedrock adapter through the gateway's real upstream path (the executor, the undici
// client, the event-stream reader) against the Bedrock emulator: how Bedrock's error types
// are judged, exceptions inside a stream, an oversized frame, a Bedrock API key instead of
// SigV4, and no AWS credentials at all.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { canonicalRequest, user } from '../../conformance/conformance-fixtures.ts';
import { ExecutorHarness } from '../../conformance/run-through-executor.ts';
import { BEDROCK_SUBJECT } from '../../conformance/subjects/bedrock-subject.ts';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../../emulators/bedrock-emulator.ts';

const ERRORTYPE = 'x-amzn-errortype';

function typed(status: number, type: string, message: string) {
  return {
    fault: 'status' as const,
    status,
    body: { message },
    headers: { [ERRORTYPE]: `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  };
}

describe('bedrock adapter through the executor', () => {
  let emu: BedrockEmulator;
  let harness: ExecutorHarness;

  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
    emu = await startBedrockEmulator({ apiKey: 'bedrock-api-key-test' });
    harness = new ExecutorHarness(BEDROCK_SUBJECT, emu.baseUrl);
  });
  after(async () => {
    await harness.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  const cases: Array<{ name: string; status: number; type: string; code: string; retryable: boolean; judged?: number }> = [
    { name: 'ThrottlingException', status: 429, type: 'ThrottlingException', code: 'provider_error', retryable: true },
    { name: 'ModelNotReadyException', status: 429, type: 'ModelNotReadyException', code: 'provider_error', retryable: true },
    { name: 'ServiceUnavailableException', status: 503, type: 'ServiceUnavailableException', code: 'provider_error', retryable: true },
    {
      name: 'ServiceQuotaExceededException (a 400 about the account, not the request)',
      status: 400,
      type: 'ServiceQuotaExceededException',
      code: 'provider_error',
      retryable: true,
    },
    { name: 'ValidationException', status: 400, type: 'ValidationException', code: 'upstream_rejected_request', retryable: false },
    { name: 'AccessDeniedException', status: 403, type: 'AccessDeniedException', code: 'provider_error', retryable: true },
  ];
  for (const c of cases) {
    it(`judges ${c.name}: ${c.code}, ${c.retryable ? 'retryable' : 'not retryable'}`, async () => {
      for (const stream of [false, true]) {
        emu.enqueue(typed(c.status, c.type, `the ${c.type} message`));
        const result = await harness.run(canonicalRequest({ stream }));
        assert.equal(result.error?.code, c.code, `stream=${stream}`);
        assert.equal(result.error?.retryable, c.retryable);
        assert.equal(result.error?.metadata?.error_type, c.type);
        assert.equal(result.error?.metadata?.upstream_status, c.status);
        if (c.status === 403) assert.doesNotMatch(result.error.message, /message/, 'words about our credentials are not repeated');
        else assert.match(result.error.message, new RegExp(`the ${c.type} message`));
      }
    });
  }

  it('an exception frame in the stream ends it with a retryable error after what arrived', async () => {
    emu.enqueue({
      fault: 'stream-error',
      afterChunks: 2,
      error: { type: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
    });
    const result = await harness.run(canonicalRequest({ stream: true }));
    assert.ok(result.parts.some((p) => p.type === 'text-delta'));
    assert.equal(result.error?.code, 'provider_error');
    assert.equal(result.error?.retryable, true);
    assert.equal(result.error?.metadata?.error_type, 'throttlingException');
    assert.match(result.error.message, /Too many tokens/);
  });

  it('a malformed payload and a frame over the cap are provider errors', async () => {
    emu.enqueue({ fault: 'malformed-json' });
    const malformed = await harness.run(canonicalRequest({ stream: true }));
    assert.equal(malformed.error?.code, 'provider_error');
    assert.match(malformed.error.message, /malformed JSON/);

    emu.enqueue({ fault: 'oversized-event', chars: 64 * 1024 * 1024, afterChunks: 1 });
    const oversized = await harness.run(canonicalRequest({ stream: true }));
    assert.equal(oversized.error?.code, 'provider_error');
    assert.match(oversized.error.message, /larger than/);
    await emu.whenClosedEarly(1);
  });

  it('with an api_key (a Bedrock API key) the request carries it as a bearer token, unsigned', async () => {
    const keyed = new ExecutorHarness(
      { ...BEDROCK_SUBJECT, config: { ...BEDROCK_SUBJECT.config, apiKey: 'bedrock-api-key-test' } },
      emu.baseUrl,
    );
    try {
      const result = await keyed.run(canonicalRequest({ messages: [user('Hi')] }));
      assert.equal(result.error, null);
      assert.equal(emu.requests[0]!.headers.authorization, 'Bearer bedrock-api-key-test');
      assert.equal(emu.requests[0]!.headers['x-amz-date'], undefined);
    } finally {
      await keyed.close();
    }
  });

  it('no AWS credentials anywhere: a retryable provider error saying so, and nothing sent', async () => {
    const saved = { ...process.env };
    for (const k of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    ])
      delete process.env[k];
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/switchyard/credentials';
    process.env.AWS_CONFIG_FILE = '/nonexistent/switchyard/config';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    // A provider config of its own: signers (and their cached credentials) are per config.
    const bare = new ExecutorHarness({ ...BEDROCK_SUBJECT, config: { ...BEDROCK_SUBJECT.config } }, emu.baseUrl);
    try {
      const result = await bare.run(canonicalRequest({ messages: [user('Hi')] }));
      assert.equal(result.error?.code, 'provider_error');
      assert.equal(result.error?.retryable, true);
      assert.match(result.error.message, /Could not get credentials for the provider bedrock/);
      assert.equal(emu.requests.length, 0);
    } finally {
      await bare.close();
      process.env = saved;
    }
  });
});
