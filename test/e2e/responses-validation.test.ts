import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

const base = { model: 'switchyard/sim-fast', input: 'hi' };
const FN = { type: 'function', name: 'f', parameters: { type: 'object' } };

// [what, body, expected code, the param named]
const CASES: Array<[string, unknown, string, string | null]> = [
  ['malformed JSON', '{"model": ', 'invalid_json', null],
  ['a JSON array body', '[1,2]', 'invalid_json', null],
  ['missing input', { model: 'switchyard/sim-fast' }, 'missing_parameter', 'input'],
  ['an empty input list', { ...base, input: [] }, 'invalid_parameter', 'input'],
  ['temperature above 2', { ...base, temperature: 3 }, 'invalid_parameter', 'temperature'],
  ['top_p above 1', { ...base, top_p: 1.5 }, 'invalid_parameter', 'top_p'],
  ['max_output_tokens below 1', { ...base, max_output_tokens: 0 }, 'invalid_parameter', 'max_output_tokens'],
  ['presence_penalty above 2', { ...base, presence_penalty: 2.5 }, 'invalid_parameter', 'presence_penalty'],
  ['a negative top_k', { ...base, top_k: -1 }, 'invalid_parameter', 'top_k'],
  ['a fractional seed', { ...base, seed: 1.5 }, 'invalid_parameter', 'seed'],
  ['an unknown reasoning effort', { ...base, reasoning: { effort: 'extreme' } }, 'invalid_parameter', 'reasoning.effort'],
  ['metadata with a number value', { ...base, metadata: { n: 1 } }, 'invalid_parameter', 'metadata.n'],
  ['a bad role', { ...base, input: [{ role: 'robot', content: 'x' }] }, 'invalid_message', 'input[0].role'],
  [
    'a bad content part',
    { ...base, input: [{ role: 'user', content: [{ type: 'video' }] }] },
    'invalid_message',
    'input[0].content[0].type',
  ],
  [
    'a function call without call_id',
    { ...base, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
    'invalid_message',
    'input[0].call_id',
  ],
  [
    'an uploaded file id',
    { ...base, input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
    'unsupported_content',
    'input[0].content[0].file_id',
  ],
  ['an invalid tool_choice', { ...base, tools: [FN], tool_choice: 'sometimes' }, 'invalid_parameter', 'tool_choice'],
  [
    'a json_schema format without a name',
    { ...base, text: { format: { type: 'json_schema', schema: { type: 'object' } } } },
    'missing_parameter',
    'text.format.name',
  ],
  ['top_k with reasoning', { ...base, top_k: 5, reasoning: { effort: 'high' } }, 'reasoning_conflict', 'top_k'],
  [
    'a forced tool with reasoning',
    { ...base, tools: [FN], tool_choice: 'required', reasoning: { max_tokens: 2000 } },
    'reasoning_conflict',
    'tool_choice',
  ],
  ['an unknown model', { ...base, model: 'nobody/nothing' }, 'model_not_found', 'model'],
  // The endpoint is stateless.
  ['previous_response_id', { ...base, previous_response_id: 'resp_123' }, 'invalid_parameter', 'previous_response_id'],
  ['store: true', { ...base, store: true }, 'invalid_parameter', 'store'],
  ['a conversation id', { ...base, conversation: 'conv_1' }, 'invalid_parameter', 'conversation'],
  ['background: true', { ...base, background: true }, 'invalid_parameter', 'background'],
  ['an item reference', { ...base, input: [{ type: 'item_reference', id: 'msg_1' }] }, 'invalid_parameter', 'input[0]'],
];

describe('responses request validation over HTTP', () => {
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    gw = await startTestGateway();
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(() => gw.close());

  for (const [what, body, code, param] of CASES) {
    test(`${what} → 400 ${code}`, async () => {
      const res = await postJson(`${gw.baseUrl}/responses`, body, auth);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.code, code);
      assert.equal(res.json.error.param, param);
      if (param !== null) assert.ok(res.json.error.message.includes(param), `"${res.json.error.message}" names ${param}`);
    });
  }

  test('the stateless refusals say so, and store: false is accepted', async () => {
    const refused = await postJson(`${gw.baseUrl}/responses`, { ...base, previous_response_id: 'resp_123' }, auth);
    assert.match(refused.json.error.message, /stateless/);
    assert.match(refused.json.error.message, /whole conversation in 'input'/);
    const ok = await postJson(`${gw.baseUrl}/responses`, { ...base, store: false }, auth);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.store, false);
  });

  test('a stream request that fails validation gets a plain JSON error, not a stream', async () => {
    const res = await postJson(`${gw.baseUrl}/responses`, { ...base, stream: true, temperature: 9 }, auth);
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(res.json.error.code, 'invalid_parameter');
  });

  test('unknown fields and fields that change nothing here are accepted', async () => {
    const res = await postJson(
      `${gw.baseUrl}/responses`,
      {
        ...base,
        frobnicate: { deep: true },
        include: ['reasoning.encrypted_content'],
        client_metadata: { a: 'b' },
        prompt_cache_retention: '24h',
        truncation: 'auto',
        service_tier: 'auto',
        reasoning: { summary: 'auto' },
        tools: [FN, { type: 'web_search', external_web_access: false }, { type: 'namespace', name: 'ns', tools: [FN] }],
      },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.object, 'response');
    assert.deepEqual(
      res.json.tools.map((t: { name: string }) => t.name),
      ['f'],
      'only the function tool was offered',
    );
  });

  test('a missing or wrong key is 401 in the same error shape', async () => {
    const none = await postJson(`${gw.baseUrl}/responses`, base);
    assert.equal(none.status, 401);
    assert.equal(none.json.error.type, 'authentication_error');
    assert.equal(none.json.error.code, 'authentication_required');
    const wrong = await postJson(`${gw.baseUrl}/responses`, base, { authorization: 'Bearer sk-wrong' });
    assert.equal(wrong.status, 401);
  });

  test("served under /api/v1/responses (the spec's path) and /v1/responses", async () => {
    for (const url of [`${gw.origin}/api/v1/responses`, `${gw.baseUrl}/responses`]) {
      const res = await postJson(url, base, auth);
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      assert.equal(res.json.object, 'response');
      assert.equal(res.json.status, 'completed');
    }
  });
});
