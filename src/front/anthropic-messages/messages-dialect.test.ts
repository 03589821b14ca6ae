import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../errors/gateway-error.ts';
import { messagesDialect, readMessagesKey } from './messages-dialect.ts';

describe('messagesDialect', () => {
  it('reads the key from Authorization: Bearer, which wins over x-api-key', () => {
    assert.equal(readMessagesKey({ authorization: 'Bearer sk-bearer' }), 'sk-bearer');
    assert.equal(readMessagesKey({ 'x-api-key': 'sk-header' }), 'sk-header');
    assert.equal(readMessagesKey({ authorization: 'Bearer sk-bearer', 'x-api-key': 'sk-header' }), 'sk-bearer');
    assert.equal(readMessagesKey({ authorization: 'Basic abc', 'x-api-key': 'sk-header' }), 'sk-header');
    assert.equal(readMessagesKey({}), undefined);
  });

  it("renders errors in Anthropic's envelope with the spec's type, status, code and metadata", () => {
    const out = messagesDialect.renderError(new GatewayError('rate_limited', 'Slow down.', { headers: { 'retry-after': '3' } }));
    assert.equal(out.status, 429);
    assert.deepEqual(out.headers, { 'retry-after': '3' });
    assert.deepEqual(out.body, { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down.', code: 'rate_limited' } });
    const provider = messagesDialect.renderError(
      new GatewayError('provider_error', 'boom', { metadata: { provider_name: 'p', raw: 'x' } }),
    );
    assert.equal(provider.status, 502);
    assert.deepEqual(provider.body, {
      type: 'error',
      error: { type: 'provider_error', message: 'boom', code: 'provider_error', metadata: { provider_name: 'p', raw: 'x' } },
    });
  });

  it('has an Anthropic ping as its keep-alive', () => {
    assert.equal(messagesDialect.keepAlive?.text, 'event: ping\ndata: {"type":"ping"}\n\n');
    assert.ok(messagesDialect.keepAlive.intervalMs >= 1000);
  });
});
