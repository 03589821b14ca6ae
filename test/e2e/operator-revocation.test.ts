import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCliJson } from '../support/run-cli.ts';

// A key the operator revoked from the CLI stays revoked: the account's management key can
// disable and enable its own keys, but cannot undo the operator's revocation.

const chat = { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] };

describe("an operator's revocation is final", () => {
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    mgmt = runCliJson(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', 'admin', '--management').key;
  });
  after(() => gw.close());

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${mgmt}`, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${gw.origin}/api/v1${path}`, init);
    return { status: res.status, json: await res.json() };
  }
  const ask = async (key: string) => (await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status;

  test('the management key cannot re-enable a key the operator revoked from the CLI', async () => {
    const created = await api('POST', '/keys', { name: 'worker' });
    assert.equal(created.status, 201);
    const { key } = created.json;
    const hash: string = created.json.data.hash;
    assert.equal(await ask(key), 200);

    const revoked = runCliJson(gw.dir, 'keys', 'revoke', hash);
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.disabled, true);
    assert.equal(revoked.disabled_by, 'operator');
    // The gateway looks for the CLI's writes every 100 ms; this has it look now.
    await gw.seeCliChanges();
    assert.equal(await ask(key), 401);

    const reenable = await api('PATCH', `/keys/${hash}`, { disabled: false });
    assert.equal(reenable.status, 403);
    assert.equal(reenable.json.error.type, 'permission_error');
    assert.match(reenable.json.error.message, /revoked by the gateway operator/);
    // Nothing of the refused change was applied, not even the other fields of the same PATCH.
    const renamed = await api('PATCH', `/keys/${hash}`, { disabled: false, name: 'sneaky' });
    assert.equal(renamed.status, 403);
    const seen = await api('GET', `/keys/${hash}`);
    assert.equal(seen.json.data.disabled, true);
    assert.equal(seen.json.data.name, 'worker');
    assert.equal(await ask(key), 401);
  });

  test('a key the account disabled itself can be enabled again; an operator revocation on top of it is final', async () => {
    const created = await api('POST', '/keys', { name: 'own' });
    const hash: string = created.json.data.hash;
    const { key } = created.json;
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: true })).status, 200);
    assert.equal(await ask(key), 401);
    const back = await api('PATCH', `/keys/${hash}`, { disabled: false });
    assert.equal(back.status, 200);
    assert.equal(back.json.data.disabled, false);
    assert.equal(await ask(key), 200);

    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: true })).status, 200);
    assert.equal(runCliJson(gw.dir, 'keys', 'revoke', hash).disabled_by, 'operator');
    await gw.seeCliChanges();
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: false })).status, 403);
    // Disabling it again through the API does not take the operator's mark away.
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: true })).status, 200);
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: false })).status, 403);
    assert.equal(await ask(key), 401);
  });

  test("the operator can lift a revocation; the key is then the account's to manage again", async () => {
    const created = await api('POST', '/keys', { name: 'pardoned' });
    const hash: string = created.json.data.hash;
    const { key } = created.json;
    runCliJson(gw.dir, 'keys', 'revoke', hash);
    await gw.seeCliChanges();
    assert.equal(await ask(key), 401);
    const enabled = runCliJson(gw.dir, 'keys', 'enable', hash);
    assert.equal(enabled.status, 'active');
    assert.equal(enabled.disabled, false);
    assert.equal(enabled.disabled_by, null);
    await gw.seeCliChanges();
    assert.equal(await ask(key), 200);
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: true })).status, 200);
    assert.equal((await api('PATCH', `/keys/${hash}`, { disabled: false })).status, 200);
    assert.equal(await ask(key), 200);
  });
});
