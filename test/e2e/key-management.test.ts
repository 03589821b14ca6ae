import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

const chat = { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] };

async function call(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(url, init);
  return { status: res.status, json: await res.json() };
}

describe('key-management API (OpenRouter form)', () => {
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ credits: '20' });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
  });
  after(() => gw.close());

  test('a management key creates, lists, reads, updates and deletes keys of its account', async () => {
    const keys = `${gw.origin}/api/v1/keys`;
    const created = await call('POST', keys, mgmt, { name: 'ci', limit: 2.5 });
    assert.equal(created.status, 201);
    assert.match(created.json.key, /^sk-sy-v1-/);
    const hash = created.json.data.hash;
    assert.equal(created.json.data.name, 'ci');
    assert.equal(created.json.data.limit, 2.5);
    assert.equal(created.json.data.disabled, false);
    assert.equal(created.json.data.usage, 0);

    // The new key calls models.
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${created.json.key}` })).status, 200);

    const listed = await call('GET', keys, mgmt);
    assert.equal(listed.status, 200);
    assert.ok(listed.json.data.some((k: any) => k.hash === hash));
    assert.equal(JSON.stringify(listed.json).includes(created.json.key), false, 'never the key itself');

    const one = await call('GET', `${keys}/${hash}`, mgmt);
    assert.equal(one.json.data.label, created.json.data.label);

    const renamed = await call('PATCH', `${keys}/${hash}`, mgmt, { name: 'ci-2', limit: null });
    assert.equal(renamed.json.data.name, 'ci-2');
    assert.equal(renamed.json.data.limit, null);

    // Disabling takes effect at once, cache or not.
    const disabled = await call('PATCH', `${keys}/${hash}`, mgmt, { disabled: true });
    assert.equal(disabled.json.data.disabled, true);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${created.json.key}` })).status, 401);

    const deleted = await call('DELETE', `${keys}/${hash}`, mgmt);
    assert.deepEqual(deleted.json, { deleted: true });
    assert.equal((await call('GET', `${keys}/${hash}`, mgmt)).status, 404);
  });

  test('a management key cannot call models, and an ordinary key cannot manage keys', async () => {
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${mgmt}` });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.type, 'permission_error');
    assert.equal((await call('GET', `${gw.origin}/api/v1/keys`, gw.key)).status, 403);
  });

  test('keys of another account are not visible', async () => {
    const other = await gw.services.accountService.createAccount({ name: 'other', creditsUsd: '1' });
    const theirs = await gw.services.accountService.createKey({ accountId: other.id });
    assert.equal((await call('GET', `${gw.origin}/api/v1/keys/${theirs.record.hash}`, mgmt)).status, 404);
    assert.equal((await call('PATCH', `${gw.origin}/api/v1/keys/${theirs.record.hash}`, mgmt, { disabled: true })).status, 404);
  });

  test('bad bodies get 400 naming the field', async () => {
    const noName = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { limit: 1 });
    assert.equal(noName.status, 400);
    assert.equal(noName.json.error.code, 'missing_parameter');
    const badLimit = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'x', limit: -1 });
    assert.equal(badLimit.status, 400);
    assert.match(badLimit.json.error.message, /limit/);
  });

  test('credits: total added and total used', async () => {
    const before = (await call('GET', `${gw.origin}/api/v1/credits`, gw.key)).json.data;
    assert.equal(before.total_credits, 20);
    await postJson(`${gw.baseUrl}/chat/completions`, { ...chat, model: 'switchyard/sim-pro' }, { authorization: `Bearer ${gw.key}` });
    const after = (await call('GET', `${gw.origin}/api/v1/credits`, gw.key)).json.data;
    assert.ok(after.total_usage > before.total_usage);
    const status = (await call('GET', `${gw.baseUrl}/key?details=true`, gw.key)).json.data;
    assert.equal(status.balance, Number((after.total_credits - after.total_usage).toFixed(9)));
  });
});
