import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Management keys manage the account's API keys only: the account's other management keys
// (and the caller itself) are the operator's to change, as admin keys are. Every change a
// management key makes is in the audit log, under its own action.

describe('what a management key may manage', () => {
  let gw: TestGateway;
  let mgmt: { key: string; hash: string };
  let sibling: { key: string; hash: string };
  let admin: string;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    const a = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dashboard', management: true });
    const b = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ci-provisioner', management: true });
    mgmt = { key: a.key, hash: a.record.hash };
    sibling = { key: b.key, hash: b.record.hash };
    admin = (await createAdminKey(gw)).key;
  });
  after(() => gw.close());

  test('another management key of the account, or the caller itself, is not found: not read, renamed, disabled, enabled or deleted', async () => {
    const keys = `${gw.origin}/api/v1/keys`;
    for (const hash of [sibling.hash, mgmt.hash]) {
      assert.equal((await call('GET', `${keys}/${hash}`, mgmt.key)).status, 404);
      assert.equal((await call('GET', `${keys}/${hash}/usage`, mgmt.key)).status, 404);
      assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { name: 'renamed' })).status, 404);
      assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { disabled: true })).status, 404);
      assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { disabled: false })).status, 404);
      const deleted = await call('DELETE', `${keys}/${hash}`, mgmt.key);
      assert.equal(deleted.status, 404);
      assert.equal(deleted.json.error.code, 'not_found');
    }
    const after = (await gw.services.stores.accounts.getKey(sibling.hash))!;
    assert.equal(after.name, 'ci-provisioner');
    assert.equal(after.isActive, true);
    // The sibling still works, for what management keys do.
    assert.equal((await call('GET', keys, sibling.key)).status, 200);
    // Nothing was done, so nothing was audited on them.
    for (const hash of [sibling.hash, mgmt.hash]) {
      const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?target=${hash}`, admin);
      assert.deepEqual(audit.json.data, []);
    }
  });

  test('every change through the key-management API is audited with its action and the management key as actor', async () => {
    const keys = `${gw.origin}/api/v1/keys`;
    const created = await call('POST', keys, mgmt.key, { name: 'ci', limit: '2.5', limit_reset: 'daily' });
    assert.equal(created.status, 201);
    const hash = created.json.data.hash as string;
    assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { name: 'ci-2' })).status, 200);
    assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { disabled: true })).status, 200);
    assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt.key, { disabled: false, limit: 3 })).status, 200);
    assert.equal((await call('DELETE', `${keys}/${hash}`, mgmt.key)).status, 200);

    const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?target=${hash}`, admin);
    assert.equal(audit.status, 200);
    const rows = [...audit.json.data].reverse();
    assert.deepEqual(
      rows.map((r: any) => r.action),
      ['key.create', 'key.rename', 'key.disable', 'key.enable', 'key.limit', 'key.delete'],
    );
    for (const r of rows) {
      assert.equal(r.actor.key_hash, mgmt.hash);
      assert.equal(r.actor.account_id, gw.accountId);
      assert.equal(r.details.account_id, gw.accountId);
    }
    assert.deepEqual(rows[0].details, {
      account_id: gw.accountId,
      label: created.json.data.label,
      kind: 'api',
      limit: '2.5',
      limit_reset: 'daily',
      expires_at: null,
    });
    assert.equal(rows[1].details.name, 'ci-2');
    assert.deepEqual([rows[4].details.limit, rows[4].details.limit_reset], ['3', 'daily']);
    assert.equal(JSON.stringify(audit.json).includes(created.json.key), false, 'never the key itself');
  });

  test("the account's own settings (PATCH /account) are audited as account.update", async () => {
    const res = await call('PATCH', `${gw.origin}/api/v1/account`, mgmt.key, { name: 'Renamed', default_model: 'switchyard/sim-pro' });
    assert.equal(res.status, 200);
    const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?target=${gw.accountId}&action=account.update`, admin);
    assert.equal(audit.json.data.length, 1);
    assert.equal(audit.json.data[0].actor.key_hash, mgmt.hash);
    assert.deepEqual(audit.json.data[0].details, { name: 'Renamed', default_model: 'switchyard/sim-pro' });
  });
});
