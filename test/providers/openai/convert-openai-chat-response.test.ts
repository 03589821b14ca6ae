import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamPart } from '../../../src/canonical/stream-part.ts';
import { convertOpenAIChatResponse } from '../../../src/providers/openai/convert-openai-chat-response.ts';
import { testEndpoint } from './openai-test-helpers.ts';

function decode(body: unknown): StreamPart[] {
  const parts: StreamPart[] = [];
  convertOpenAIChatResponse(body, testEndpoint(), (p) => parts.push(p));
  return parts;
}

describe('convertOpenAIChatResponse', () => {
  it('turns anything that is not a chat completion into one provider_error part with raw', () => {
    for (const body of [null, 42, 'not json', [], {}, { choices: [] }, { choices: [{ index: 0 }] }, { choices: [null] }]) {
      const parts = decode(body);
      assert.equal(parts.length, 1, JSON.stringify(body));
      const p = parts[0]!;
      assert.ok(p.type === 'error');
      assert.equal(p.error.code, 'provider_error');
      assert.equal(p.error.metadata?.provider_name, 'openai');
      assert.ok('raw' in p.error.metadata);
    }
  });

  it('accepts the body as text too', () => {
    const parts = decode(
      '{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}',
    );
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'text-delta', 'finish'],
    );
  });

  it('maps a legacy function_call to a tool call, and infers a missing finish reason', () => {
    const parts = decode({ choices: [{ message: { content: null, function_call: { name: 'f', arguments: '{}' } } }] });
    assert.deepEqual(parts, [
      { type: 'stream-start', id: undefined, model: undefined },
      { type: 'tool-call-start', index: 0, id: 'call_0', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', reason: { unified: 'tool_calls', raw: null } },
    ]);
  });

  it('shows a refusal as text', () => {
    const parts = decode({ choices: [{ message: { content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' }] });
    assert.deepEqual(parts[1], { type: 'text-delta', text: 'I cannot help.' });
  });
});
