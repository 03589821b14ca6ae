import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// `switchyard members list|add|update|remove` on a running gateway's database: the admin
// API sees what the CLI did, the audit log names the operator's CLI, and a removal without
// the keys' choice is refused.

let gw: TestGateway;
let admin: string;
before(async () => {
  gw = await startTestGateway();
  admin = (await createAdminKey(gw)).key;
});
after(() => gw?.close());

test('members add, list, update and remove through the CLI', async () => {
  const ann = runCliJson(gw.dir, 'members', 'add', '--account', gw.accountId, '--email', 'ann@example.com', '--role', 'admin');
  assert.equal(ann.role, 'admin');
  const bob = runCliJson(gw.dir, 'members', 'add', '--account', gw.accountId, '--email', 'bob@example.com');
  assert.equal(bob.role, 'member');
  assert.deepEqual(
    runCliJson(gw.dir, 'members', 'list', '--account', gw.accountId).map((m: { email: string }) => m.email),
    ['ann@example.com', 'bob@example.com'],
  );
  assert.equal(runCliJson(gw.dir, 'members', 'update', bob.id, '--role', 'viewer').role, 'viewer');
  const refused = runCli(gw.dir, 'members', 'remove', bob.id);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /--keys disable, or --keys reassign --to/);
  assert.equal(runCliJson(gw.dir, 'members', 'remove', bob.id, '--keys', 'reassign', '--to', ann.id).deleted, true);
  await gw.seeCliChanges();
  const seen = await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/members`, admin);
  assert.deepEqual(
    seen.json.data.map((m: { email: string; role: string }) => [m.email, m.role]),
    [['ann@example.com', 'admin']],
  );
  const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?action=member.remove`, admin);
  assert.equal(audit.json.data[0].actor.label, 'operator (CLI)');
  assert.equal(audit.json.data[0].details.keys, 'reassign');
});
