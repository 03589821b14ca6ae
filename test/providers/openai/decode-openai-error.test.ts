import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeOpenAIError } from '../../../src/providers/openai/decode-openai-error.ts';
import { testEndpoint } from './openai-test-helpers.ts';

const ep = testEndpoint();
const body = (message: string) => JSON.stringify({ error: { message, type: 'x', param: null, code: null } });

describe('decodeOpenAIError', () => {
  it('maps statuses to codes and retryability', () => {
    const cases: Array<[number, string, boolean]> = [
      [400, 'upstream_rejected_request', false],
      [404, 'upstream_rejected_request', false],
      [413, 'upstream_rejected_request', false],
      [422, 'upstream_rejected_request', false],
      [401, 'provider_error', true],
      [402, 'provider_error', true],
      [403, 'provider_error', true],
      [408, 'provider_error', true],
      [409, 'provider_error', true],
      [429, 'provider_error', true],
      [500, 'provider_error', true],
      [529, 'provider_error', true],
      [418, 'provider_error', false],
    ];
    for (const [status, code, retryable] of cases) {
      const err = decodeOpenAIError(status, body('m'), {}, ep);
      assert.equal(err.code, code, String(status));
      assert.equal(err.retryable, retryable, String(status));
      assert.equal(err.status, code === 'provider_error' ? 502 : 400);
      // A 401/403 body is about the gateway's credentials (and may repeat them): not kept.
      const raw = status === 401 || status === 403 ? {} : { raw: JSON.parse(body('m')) };
      assert.deepEqual(err.metadata, { provider_name: 'openai', ...raw, upstream_status: status });
    }
  });

  it('keeps upstream words about the gateway credentials out of the message', () => {
    const err = decodeOpenAIError(401, body('Incorrect API key provided: sk-abc***xyz'), {}, ep);
    assert.equal(err.message, 'OpenAI returned HTTP 401');
    assert.equal(decodeOpenAIError(500, body('boom'), {}, ep).message, 'OpenAI returned HTTP 500: boom');
  });

  it('reads other compatible error shapes, and falls back to a message of its own', () => {
    assert.equal(decodeOpenAIError(400, '{"error":"bad model"}', {}, ep).message, 'bad model');
    assert.equal(decodeOpenAIError(422, '{"message":"invalid temperature"}', {}, ep).message, 'invalid temperature');
    assert.equal(decodeOpenAIError(400, '', {}, ep).message, 'OpenAI rejected the request (HTTP 400)');
  });

  it('keeps a text body as text, truncated', () => {
    const err = decodeOpenAIError(502, 'x'.repeat(5000), {}, ep);
    assert.equal(err.metadata?.raw, 'x'.repeat(2000));
    assert.equal(decodeOpenAIError(500, '{broken', {}, ep).metadata?.raw, '{broken');
  });

  it('carries retry-after in seconds, as an HTTP date, or retry-after-ms', () => {
    assert.equal(decodeOpenAIError(429, '', { 'retry-after': '12' }, ep).metadata?.retry_after_seconds, 12);
    assert.equal(decodeOpenAIError(429, '', { 'retry-after': ['3'] }, ep).metadata?.retry_after_seconds, 3);
    assert.equal(decodeOpenAIError(429, '', { 'retry-after-ms': '1500' }, ep).metadata?.retry_after_seconds, 2);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const fromDate = decodeOpenAIError(503, '', { 'retry-after': date }, ep).metadata?.retry_after_seconds as number;
    assert.ok(fromDate >= 28 && fromDate <= 31, String(fromDate));
    assert.equal('retry_after_seconds' in decodeOpenAIError(429, '', { 'retry-after': 'soon' }, ep).metadata!, false);
    assert.equal('retry_after_seconds' in decodeOpenAIError(429, '', {}, ep).metadata!, false);
  });
});
