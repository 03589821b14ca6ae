import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderChatError } from './render-chat-error.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { decodeChatRequest } from './decode-chat-request.ts';

describe('renderChatError', () => {
  it('renders a validation error with its param', () => {
    let err: GatewayError | undefined;
    try {
      decodeChatRequest({ messages: [{ role: 'user', content: 'x' }], temperature: 3 });
    } catch (e) {
      err = e as GatewayError;
    }
    const out = renderChatError(err!);
    assert.equal(out.status, 400);
    assert.deepEqual(out.headers, {});
    assert.deepEqual(out.body, {
      error: { message: err!.message, type: 'invalid_request_error', code: 'invalid_parameter', param: 'temperature' },
    });
  });

  it('renders metadata and headers, param null when unknown', () => {
    const err = new GatewayError('rate_limited', 'Slow down', { headers: { 'retry-after': '3' }, metadata: { limit: 10 } });
    const out = renderChatError(err);
    assert.equal(out.status, 429);
    assert.deepEqual(out.headers, { 'retry-after': '3' });
    assert.deepEqual(out.body, {
      error: { message: 'Slow down', type: 'rate_limit_error', code: 'rate_limited', param: null, metadata: { limit: 10 } },
    });
  });

  it('renders provider errors with their status', () => {
    const err = new GatewayError('provider_error', 'Upstream failed', { metadata: { provider_name: 'openai', raw: 'oops' } });
    const out = renderChatError(err);
    assert.equal(out.status, 502);
    assert.equal(out.body.error.type, 'provider_error');
    assert.deepEqual(out.body.error.metadata, { provider_name: 'openai', raw: 'oops' });
  });
});
