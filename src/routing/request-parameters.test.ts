import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalRequest } from '../canonical/request.ts';
import { missingParameters, preferredParameters, requestParameters } from './request-parameters.ts';

function req(extra: Partial<CanonicalRequest>): CanonicalRequest {
  return {
    models: [{ model: 'a/b' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
    ...extra,
  };
}

describe('requestParameters', () => {
  it('names only what the client set, in chat-table names', () => {
    assert.deepEqual(requestParameters(req({})), []);
    assert.deepEqual(requestParameters(req({ sampling: { temperature: 0.5, topK: 3, seed: 1 }, maxOutputTokens: 10, stop: ['x'] })), [
      'temperature',
      'top_k',
      'seed',
      'max_tokens',
      'stop',
    ]);
  });

  it('tools, tool choice and response formats', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    assert.deepEqual(requestParameters(req({ tools, toolChoice: { type: 'auto' } })), ['tools', 'tool_choice']);
    assert.deepEqual(requestParameters(req({ responseFormat: { type: 'json_object' } })), ['response_format']);
    assert.deepEqual(requestParameters(req({ responseFormat: { type: 'json_schema', name: 'x', schema: {} } })), [
      'response_format',
      'structured_outputs',
    ]);
    assert.deepEqual(requestParameters(req({ responseFormat: { type: 'text' } })), [], 'plain text asks nothing of the endpoint');
  });

  it('leaves out hints whose loss does not change the answer', () => {
    assert.deepEqual(requestParameters(req({ user: 'u1', promptCacheKey: 'k' })), []);
  });

  it('prefers tools and response formats even without require_parameters', () => {
    assert.deepEqual(preferredParameters(['temperature', 'tools', 'response_format', 'structured_outputs']), [
      'tools',
      'response_format',
      'structured_outputs',
    ]);
  });

  it('lists what an endpoint lacks', () => {
    assert.deepEqual(missingParameters(['tools', 'top_k'], new Set(['tools'])), ['top_k']);
    assert.deepEqual(missingParameters(['tools'], new Set(['tools'])), []);
  });
});
