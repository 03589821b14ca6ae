import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { postLargeBody } from '../support/raw-http.ts';

// Bodies from clients the gateway does not know are refused from the headers alone,
// before the body is read; bodies over the size limit are refused with 413 in the
// dialect's shape. "Before the body is read" is an outcome: the answer arrives while the
// client is still writing a body far larger than any socket buffer.

const LARGE = 16 * 1024 * 1024;
const HEAD = '{"model":"switchyard/sim-fast","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"input":"hi"}';

type Shape = 'openai' | 'anthropic' | 'google';

function assertShape(json: any, shape: Shape, code: string, type: string): void {
  if (shape === 'google') {
    assert.deepEqual(Object.keys(json?.error ?? {}).sort(), ['code', 'details', 'message', 'status'], JSON.stringify(json));
    assert.equal(json.error.details[0].reason, code.toUpperCase());
  } else if (shape === 'anthropic') {
    assert.equal(json?.type, 'error', JSON.stringify(json));
    assert.equal(json.error.type, type);
    assert.equal(json.error.code, code);
  } else {
    assert.equal(json?.error?.code, code, JSON.stringify(json));
    assert.equal(json.error.type, type);
    assert.ok('param' in json.error, 'the OpenAI error object has param');
  }
}

const ROUTES: Array<[string, string, Shape]> = [
  ['chat completions', '/v1/chat/completions', 'openai'],
  ['responses', '/v1/responses', 'openai'],
  ['messages', '/v1/messages', 'anthropic'],
  ['messages count_tokens', '/v1/messages/count_tokens', 'anthropic'],
  ['gemini generateContent', '/v1beta/models/switchyard/sim-fast:generateContent', 'google'],
  ['gemini countTokens', '/v1beta/models/switchyard/sim-fast:countTokens', 'google'],
  ['key management', '/api/v1/keys', 'openai'],
];

describe('unauthenticated bodies are refused before they are read', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  for (const [what, path, shape] of ROUTES) {
    test(`${what}: no key → 401 in the dialect's shape while the client is still sending`, async () => {
      const res = await postLargeBody(gw.origin + path, {}, HEAD, LARGE);
      assert.equal(res.status, 401);
      assertShape(res.json, shape, 'authentication_required', 'authentication_error');
      assert.ok(res.sentWhenAnswered < res.total, `answered after ${res.sentWhenAnswered} of ${res.total} bytes`);
      assert.equal(res.headers.connection, 'close', 'the rest of the body is not read');
    });
  }

  test('an unknown key is refused the same way', async () => {
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer sk-sy-v1-${'A'.repeat(43)}` }, HEAD, LARGE);
    assert.equal(res.status, 401);
    assert.ok(res.sentWhenAnswered < res.total);
  });

  test('a POST to no route → 404 before the body is read', async () => {
    const res = await postLargeBody(`${gw.origin}/v1/no-such-route`, {}, HEAD, LARGE);
    assert.equal(res.status, 404);
    assertShape(res.json, 'openai', 'not_found', 'not_found_error');
    assert.ok(res.sentWhenAnswered < res.total);
  });

  test('with a valid key the same body is read and answered', async () => {
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer ${gw.key}` }, HEAD, 256 * 1024);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.object, 'chat.completion');
  });
});

describe('bodies over server.body_limit_bytes → 413 request_too_large', () => {
  const LIMIT = 1024 * 1024;
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}server: { body_limit_bytes: ${LIMIT} }\n` });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
  });
  after(() => gw.close());

  for (const [what, path, shape] of ROUTES.filter(([, p]) => p !== '/api/v1/keys')) {
    test(`${what}: a Content-Length over the limit → 413 in the dialect's shape`, async () => {
      // Each route with the kind of key it takes (a key of another kind is refused before the body).
      const key = path.endsWith('/keys') ? mgmt : gw.key;
      const res = await postLargeBody(gw.origin + path, { authorization: `Bearer ${key}` }, HEAD, LIMIT + 1);
      assert.equal(res.status, 413);
      assertShape(res.json, shape, 'request_too_large', 'request_too_large');
      assert.match(res.json.error.message, new RegExp(String(LIMIT)));
    });
  }

  test("the key-management API takes at most 64 KiB (its JSON is small): 413 from a management key's headers", async () => {
    const account = await gw.services.accountService.createAccount({ name: 'm', type: 'user' });
    const mgmt = (await gw.services.accountService.createKey({ accountId: account.id, name: 'm', management: true })).key;
    const res = await postLargeBody(`${gw.origin}/api/v1/keys`, { authorization: `Bearer ${mgmt}` }, '{"name":"k"}', 64 * 1024 + 1);
    assert.equal(res.status, 413);
    assertShape(res.json, 'openai', 'request_too_large', 'request_too_large');
    assert.match(res.json.error.message, /65536/);
  });

  test('a chunked body that grows past the limit → 413', async () => {
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer ${gw.key}` }, HEAD, 4 * LIMIT, {
      chunked: true,
    });
    assert.equal(res.status, 413);
    assertShape(res.json, 'openai', 'request_too_large', 'request_too_large');
    assert.ok(res.sentWhenAnswered < res.total);
  });

  test('a body at the limit is accepted', async () => {
    const res = await postLargeBody(`${gw.baseUrl}/chat/completions`, { authorization: `Bearer ${gw.key}` }, HEAD, LIMIT);
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });
});
