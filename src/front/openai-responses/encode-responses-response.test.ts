import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';

const META: ResponseMeta = {
  id: 'gen-1770000000-abc',
  created: 1770000000,
  model: 'acme/model-1',
  provider: 'acme',
  excludeReasoning: false,
};
const USAGE = { input: 30, cacheRead: 10, cacheWrite: 4, output: 12, reasoning: 5 };

function answer(
  content: CanonicalResponse['content'],
  unified: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' = 'stop',
): CanonicalResponse {
  return { content, finish: { unified, raw: null }, usage: USAGE };
}

describe('encodeResponsesResponse', () => {
  it('writes reasoning, message and function-call items in order, with the vendor and the spec fields', () => {
    const body = encodeResponsesResponse(
      answer(
        [
          { type: 'reasoning', text: 'Think.', signature: 'SIG' },
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
        'tool_calls',
      ),
      { ...META, cost: 0.0012 },
    );

    assert.equal(body.id, 'resp_1770000000-abc');
    assert.equal(body.object, 'response');
    assert.equal(body.created_at, 1770000000);
    assert.equal(body.created, 1770000000);
    assert.equal(body.status, 'completed');
    assert.equal(body.error, null);
    assert.equal(body.incomplete_details, null);
    assert.equal(body.model, 'acme/model-1');
    assert.deepEqual(body.output, [
      { id: 'rs_1770000000-abc_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }], encrypted_content: 'SIG' },
      {
        id: 'msg_1770000000-abc_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Calling.', annotations: [] }],
      },
      {
        id: 'fc_1770000000-abc_2',
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Oslo"}',
        call_id: 'call_1',
        name: 'get_weather',
      },
    ]);
    assert.deepEqual(body.usage, {
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 10, cache_write_tokens: 4 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 42,
      prompt_tokens: 30,
      completion_tokens: 12,
      cache_read_input_tokens: 10,
      cache_creation_input_tokens: 4,
      cost: 0.0012,
    });
  });

  it('a cut answer is incomplete with the reason, and its last item is incomplete', () => {
    const length = encodeResponsesResponse(answer([{ type: 'text', text: 'Once upon' }], 'length'), META);
    assert.equal(length.status, 'incomplete');
    assert.deepEqual(length.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal((length.output[0] as { status: string }).status, 'incomplete');
    const filtered = encodeResponsesResponse(answer([], 'content_filter'), META);
    assert.deepEqual(filtered.incomplete_details, { reason: 'content_filter' });
  });

  it('an answer that finished with an error is failed, with the error and an error item', () => {
    const body = encodeResponsesResponse(answer([{ type: 'text', text: 'partial' }], 'error'), META);
    assert.equal(body.status, 'failed');
    assert.deepEqual(body.error, { code: 'provider_error', message: 'The provider ended its answer with an error.' });
    assert.deepEqual(body.output[1], {
      id: 'err_1770000000-abc_1',
      type: 'error',
      code: 'provider_error',
      message: 'The provider ended its answer with an error.',
    });
  });

  it('excluded reasoning is left out; redacted reasoning round-trips through encrypted_content', () => {
    const parts: CanonicalResponse['content'] = [
      { type: 'redacted-reasoning', data: 'OPAQUE' },
      { type: 'reasoning', text: '', signature: 'ONLY_SIG' },
      { type: 'reasoning', text: 'no signature, nothing to carry but text' },
      { type: 'text', text: 'Hi' },
    ];
    const hidden = encodeResponsesResponse(answer(parts), { ...META, excludeReasoning: true });
    assert.deepEqual(
      hidden.output.map((o) => o.type),
      ['message'],
    );

    const shown = encodeResponsesResponse(answer(parts), META);
    assert.deepEqual(
      shown.output.map((o) => o.type),
      ['reasoning', 'reasoning', 'reasoning', 'message'],
    );
    const replay = decodeResponsesRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, ...shown.output] });
    assert.deepEqual(replay.messages[1], { role: 'assistant', content: parts });
  });

  it("echoes the request's settings, including metadata and the tools it kept", () => {
    const req = decodeResponsesRequest({
      model: 'm',
      input: 'q',
      instructions: 'Be brief.',
      metadata: { run: '7' },
      temperature: 0.2,
      max_output_tokens: 99,
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'web_search' }],
      tool_choice: { type: 'function', name: 'f' },
      reasoning: { effort: 'none', summary: 'auto' },
      text: { format: { type: 'json_object' } },
      user: 'u',
    });
    const body = encodeResponsesResponse(answer([{ type: 'text', text: '{}' }]), META, req);
    assert.equal(body.instructions, 'Be brief.');
    assert.deepEqual(body.metadata, { run: '7' });
    assert.equal(body.temperature, 0.2);
    assert.equal(body.max_output_tokens, 99);
    assert.deepEqual(body.tools, [{ type: 'function', name: 'f', description: null, parameters: { type: 'object' }, strict: null }]);
    assert.deepEqual(body.tool_choice, { type: 'function', name: 'f' });
    assert.deepEqual(body.reasoning, { effort: 'none', summary: 'auto' });
    assert.deepEqual(body.text, { format: { type: 'json_object' } });
    assert.equal(body.user, 'u');
    assert.equal(body.store, false);
    assert.equal(body.previous_response_id, null);

    const bare = encodeResponsesResponse(answer([]), META);
    assert.deepEqual(bare.metadata, {});
    assert.deepEqual(bare.tools, []);
    assert.equal(bare.tool_choice, 'auto');
  });

  it('unknown usage is all zeros, in every field Codex parses', () => {
    const body = encodeResponsesResponse({ content: [], finish: null, usage: null }, META);
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.usage, {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
    });
  });
});
