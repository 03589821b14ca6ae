import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call as callWithKey, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Deactivating an account ends its dashboard sessions for good: reactivating it later does
// not bring an old session cookie back (it answered 200 again before this was fixed).

async function signIn(gw: TestGateway, key: string): Promise<string> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
  assert.equal(res.status, 200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

async function withCookie(gw: TestGateway, path: string, cookie: string): Promise<number> {
  return (await fetch(`${gw.origin}${path}`, { headers: { cookie } })).status;
}

describe('deactivating an account ends its dashboard sessions', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    gw = await startTestGateway();
    admin = (await createAdminKey(gw)).key;
  });
  after(() => gw.close());

  const setActive = async (accountId: string, active: boolean) => {
    const res = await callWithKey('PATCH', `${gw.origin}/api/v1/admin/accounts/${accountId}`, admin, { is_active: active });
    assert.equal(res.status, 200);
  };

  test('through the admin API: the old cookie stays 401 after reactivation; a new sign-in works', async () => {
    const acct = await gw.services.accountService.createAccount({ name: 'customer' });
    const other = await gw.services.accountService.createAccount({ name: 'bystander' });
    const mgmt = (await gw.services.accountService.createKey({ accountId: acct.id, name: 'dash', management: true })).key;
    const mgmt2 = (await gw.services.accountService.createKey({ accountId: acct.id, name: 'dash 2', management: true })).key;
    const theirs = (await gw.services.accountService.createKey({ accountId: other.id, name: 'dash', management: true })).key;
    const cookie = await signIn(gw, mgmt);
    const cookie2 = await signIn(gw, mgmt2);
    const bystander = await signIn(gw, theirs);
    assert.equal(await withCookie(gw, '/api/v1/keys', cookie), 200);

    await setActive(acct.id, false);
    assert.equal(await withCookie(gw, '/api/v1/keys', cookie), 401);
    await setActive(acct.id, true);
    assert.equal(await withCookie(gw, '/api/v1/keys', cookie), 401, 'the session ended with the deactivation');
    assert.equal(await withCookie(gw, '/api/v1/keys', cookie2), 401, 'every key of the account');
    const state = (await (await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie } })).json()) as { signed_in: boolean };
    assert.equal(state.signed_in, false);
    assert.equal(await withCookie(gw, '/api/v1/keys', bystander), 200, 'other accounts keep theirs');

    // The key itself works again: signing in anew makes a new session.
    assert.equal(await withCookie(gw, '/api/v1/keys', await signIn(gw, mgmt)), 200);
  });

  test('through the CLI (another process) alike', async () => {
    const acct = await gw.services.accountService.createAccount({ name: 'cli customer' });
    const mgmt = (await gw.services.accountService.createKey({ accountId: acct.id, name: 'dash', management: true })).key;
    const cookie = await signIn(gw, mgmt);
    assert.equal(runCli(gw.dir, 'accounts', 'update', '--account', acct.id, '--active', 'false').code, 0);
    assert.equal(runCli(gw.dir, 'accounts', 'update', '--account', acct.id, '--active', 'true').code, 0);
    await gw.seeCliChanges();
    assert.equal(await withCookie(gw, '/api/v1/keys', cookie), 401);
  });
});
