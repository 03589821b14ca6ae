import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Client JSON nested past the documented depth (64) is a 400 naming the field, in the
// dialect's shape, for every route that takes a body: nothing downstream (the token
// estimator, schema conversions, JSON.stringify) gets to overflow the stack on it. The
// key-management API refuses amounts it cannot store. Bodies are built as text: the
// test's own JSON.stringify would overflow on them.

const DEEP = 200_000;

/** A JSON schema as text, `levels` objects deep through `properties.a`. */
function nestedSchema(levels: number): string {
  return '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + '}}'.repeat(levels);
}

const BODIES: Array<[string, string, (schema: string) => string, 'openai' | 'anthropic' | 'google', string]> = [
  [
    'chat tool parameters',
    '/v1/chat/completions',
    (s) =>
      `{"model":"switchyard/sim-fast","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${s}}}]}`,
    'openai',
    'tools',
  ],
  [
    'chat response_format schema',
    '/v1/chat/completions',
    (s) =>
      `{"model":"switchyard/sim-fast","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${s}}}}`,
    'openai',
    'response_format',
  ],
  [
    'responses tool parameters',
    '/v1/responses',
    (s) => `{"model":"switchyard/sim-fast","input":"hi","tools":[{"type":"function","name":"f","parameters":${s}}]}`,
    'openai',
    'tools',
  ],
  [
    'responses text.format schema',
    '/v1/responses',
    (s) => `{"model":"switchyard/sim-fast","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":${s}}}}`,
    'openai',
    'text',
  ],
  [
    'messages tool input_schema',
    '/v1/messages',
    (s) =>
      `{"model":"switchyard/sim-fast","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${s}}]}`,
    'anthropic',
    'tools',
  ],
  [
    'messages count_tokens',
    '/v1/messages/count_tokens',
    (s) => `{"model":"switchyard/sim-fast","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${s}}]}`,
    'anthropic',
    'tools',
  ],
  [
    'gemini function parameters',
    '/v1beta/models/switchyard/sim-fast:generateContent',
    (s) => `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${s}}]}]}`,
    'google',
    'tools',
  ],
  [
    'gemini responseSchema',
    '/v1beta/models/switchyard/sim-fast:streamGenerateContent?alt=sse',
    (s) => `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json","responseSchema":${s}}}`,
    'google',
    'generationConfig',
  ],
  [
    'gemini countTokens',
    '/v1beta/models/switchyard/sim-fast:countTokens',
    (s) => `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":${s}}]}]}`,
    'google',
    'tools',
  ],
  [
    'a message content tree',
    '/v1/chat/completions',
    () => `{"model":"switchyard/sim-fast","messages":[{"role":"user","content":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}]}`,
    'openai',
    'messages',
  ],
];

describe('nesting depth and numeric ranges', () => {
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway();
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
  });
  after(() => gw.close());

  for (const [what, path, body, shape, param] of BODIES) {
    test(`${what} nested ${DEEP} deep → 400 naming '${param}'`, async () => {
      const res = await postJson(gw.origin + path, body(nestedSchema(DEEP)), { authorization: `Bearer ${gw.key}` });
      assert.equal(res.status, 400, res.text.slice(0, 300));
      if (shape === 'google') {
        // Google's shape: the gateway's code and param in its ErrorInfo.
        assert.equal(res.json.error.status, 'INVALID_ARGUMENT');
        assert.equal(res.json.error.details[0].reason, 'INVALID_PARAMETER');
        assert.equal(res.json.error.details[0].metadata.param, param);
      } else {
        if (shape === 'anthropic') assert.equal(res.json.type, 'error');
        else assert.equal(res.json.error.param, param);
        assert.equal(res.json.error.code, 'invalid_parameter');
      }
      assert.match(res.json.error.message, /64/);
      assert.ok(res.json.error.message.includes(param));
    });
  }

  test('a tool schema within the depth limit is accepted', async () => {
    // body 1, tools 2, tool 3, function 4, parameters 5: 29 levels of two each put the innermost schema at 63, 30 at 65.
    const [, path, body] = BODIES[0]!;
    const res = await postJson(gw.origin + path, body(nestedSchema(29)), { authorization: `Bearer ${gw.key}` });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const over = await postJson(gw.origin + path, body(nestedSchema(30)), { authorization: `Bearer ${gw.key}` });
    assert.equal(over.status, 400);
  });

  test('the key-management API refuses deep bodies and amounts it cannot store', async () => {
    const keys = `${gw.origin}/api/v1/keys`;
    const headers = { authorization: `Bearer ${mgmt}` };
    // 65 levels: one past the limit, in a body small enough for the key API's 64 KiB.
    const deep = await postJson(keys, `{"name":"k","extra":${'['.repeat(64)}${']'.repeat(64)}}`, headers);
    assert.equal(deep.status, 400, deep.text.slice(0, 300));
    assert.equal(deep.json.error.param, 'extra');

    for (const limit of ['99999999999999999999999999999', 1e20, '1000000000.000000001', -1]) {
      const res = await postJson(keys, { name: 'k', limit }, headers);
      assert.equal(res.status, 400, `${limit}: ${res.text}`);
      assert.equal(res.json.error.code, 'invalid_parameter');
      assert.equal(res.json.error.param, 'limit');
    }
    const atMax = await postJson(keys, { name: 'k', limit: 1_000_000_000 }, headers);
    assert.equal(atMax.status, 201, atMax.text);
    assert.equal(atMax.json.data.limit, 1_000_000_000);

    const patched = await fetch(`${keys}/${atMax.json.data.hash}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"limit":"99999999999999999999999999999"}',
    });
    assert.equal(patched.status, 400);
    assert.equal(((await patched.json()) as any).error.param, 'limit');

    const longName = await postJson(keys, { name: 'n'.repeat(257) }, headers);
    assert.equal(longName.status, 400);
    assert.equal(longName.json.error.param, 'name');
  });
});
