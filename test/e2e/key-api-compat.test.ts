import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The key-management API's rough edges: fields it does not take, management keys, a limit
// below usage, the 402 a key's limit causes; and the 401 the messages endpoint gives.

const chat = { model: 'switchyard/sim-pro', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };

async function call(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(url, init);
  return { status: res.status, json: await res.json() };
}

describe('key-management API: what it refuses and reports', () => {
  let gw: TestGateway;
  let mgmt: string;
  let keys: string;
  before(async () => {
    gw = await startTestGateway({ credits: '20' });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
    keys = `${gw.origin}/api/v1/keys`;
  });
  after(() => gw.close());

  test('PATCH with a field it does not take is a 400 naming the field, and changes nothing', async () => {
    const created = await call('POST', keys, mgmt, { name: 'patch-me' });
    const hash = created.json.data.hash;
    for (const field of ['limt', 'limit_reset', 'include_byok_in_limit']) {
      const res = await call('PATCH', `${keys}/${hash}`, mgmt, { name: 'renamed', [field]: 1 });
      assert.equal(res.status, 400, field);
      assert.equal(res.json.error.code, 'invalid_parameter');
      assert.equal(res.json.error.param, field);
      assert.match(res.json.error.message, new RegExp(`"${field}"`));
    }
    assert.equal((await call('GET', `${keys}/${hash}`, mgmt)).json.data.name, 'patch-me');
  });

  test('POST with a field it does not take is a 400 naming the field', async () => {
    const res = await call('POST', keys, mgmt, { name: 'x', limits: 3 });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.param, 'limits');
  });

  test('POST management: true is refused (management keys come from the operator); false is the default', async () => {
    const before = (await gw.services.stores.accounts.listKeys(gw.accountId)).length;
    const res = await call('POST', keys, mgmt, { name: 'minted', management: true });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.param, 'management');
    assert.match(res.json.error.message, /operator/);
    assert.equal((await gw.services.stores.accounts.listKeys(gw.accountId)).length, before, 'no key was created');
    const plain = await call('POST', keys, mgmt, { name: 'plain', management: false });
    assert.equal(plain.status, 201);
    assert.equal((await gw.services.stores.accounts.getKey(plain.json.data.hash))?.isManagement, false);
  });

  test("a limit below usage reports limit_remaining 0 in the keys API and GET /v1/key, and the 402 says it is the key's limit", async () => {
    const created = await call('POST', keys, mgmt, { name: 'spender' });
    const { hash } = created.json.data;
    const key = created.json.key as string;
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);
    await gw.flush();
    const lowered = await call('PATCH', `${keys}/${hash}`, mgmt, { limit: '0.000000001' });
    assert.equal(lowered.status, 200);
    assert.ok(lowered.json.data.usage > lowered.json.data.limit, 'the limit is now below usage');
    assert.equal(lowered.json.data.limit_remaining, 0);
    assert.equal((await call('GET', `${keys}/${hash}`, mgmt)).json.data.limit_remaining, 0);
    const listed = (await call('GET', keys, mgmt)).json.data.find((k: any) => k.hash === hash);
    assert.equal(listed.limit_remaining, 0);
    const own = (await call('GET', `${gw.baseUrl}/key`, key)).json.data;
    assert.equal(own.limit_remaining, 0);

    const refused = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    assert.equal(refused.status, 402);
    assert.equal(refused.json.error.metadata.reason, 'key_limit');
    const message = refused.json.error.message as string;
    assert.match(message, /this key's credit limit is used up/);
    assert.match(message, /raise or remove this key's limit/);
    assert.match(message, /PATCH \/api\/v1\/keys/);
    assert.doesNotMatch(message, /add credits/i, 'credits would not help');
  });

  test('a 402 for the account balance still says to add credits', async () => {
    const svc = gw.services.accountService;
    const broke = await svc.createAccount({ name: 'broke', creditsUsd: '0' });
    const { key } = await svc.createKey({ accountId: broke.id });
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 402);
    assert.equal(res.json.error.metadata.reason, 'balance');
    assert.match(res.json.error.message, /add credits/);
  });
});

describe('the messages endpoint 401 names both headers it reads', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  test('the Anthropic SDK with a wrong key is told about x-api-key and Authorization: Bearer', async () => {
    const client = new Anthropic({ baseURL: gw.origin, apiKey: 'sk-sy-v1-wrong', maxRetries: 0 });
    await assert.rejects(
      client.messages.create({ model: 'switchyard/sim-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) => {
        assert.ok(err instanceof Anthropic.AuthenticationError);
        assert.match(err.message, /x-api-key: <key>/);
        assert.match(err.message, /Authorization: Bearer <key>/);
        return true;
      },
    );
  });

  test('no key at all: the same; the chat endpoint, which reads only the bearer token, names that alone', async () => {
    const messages = await postJson(`${gw.baseUrl}/messages`, {
      model: 'switchyard/sim-fast',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(messages.status, 401);
    assert.match(messages.json.error.message, /x-api-key/);
    const chatRes = await postJson(`${gw.baseUrl}/chat/completions`, {
      model: 'switchyard/sim-fast',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(chatRes.status, 401);
    assert.doesNotMatch(chatRes.json.error.message, /x-api-key/);
    assert.match(chatRes.json.error.message, /Authorization: Bearer/);
  });
});
