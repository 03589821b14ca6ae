import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// What an operator (admin API, CLI) or an account (key-management API, PATCH /account)
// names, dates and defaults to is bounded: a key born expired, a name of megabytes and a
// default model no catalog serves are 400s, never stored.

describe('names, expiries and default models are checked wherever they are set', () => {
  let gw: TestGateway;
  let admin: string;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    admin = (await createAdminKey(gw)).key;
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
  });
  after(() => gw.close());

  const past = '2020-01-01T00:00:00Z';
  const future = new Date(Date.now() + 86_400_000).toISOString();

  test('a key that would be born expired is refused by the admin API, the key-management API and the CLI', async () => {
    const before = (await gw.services.stores.accounts.listKeys(gw.accountId)).length;
    const viaAdmin = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, {
      name: 'late',
      expires_at: past,
    });
    assert.equal(viaAdmin.status, 400);
    assert.equal(viaAdmin.json.error.code, 'invalid_parameter');
    assert.equal(viaAdmin.json.error.param, 'expires_at');
    assert.match(viaAdmin.json.error.message, /past/);
    const viaKeysApi = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'late', expires_at: past });
    assert.equal(viaKeysApi.status, 400);
    assert.equal(viaKeysApi.json.error.param, 'expires_at');
    const cli = runCli(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', 'late', '--expires', '2020-01-01');
    assert.equal(cli.code, 1);
    assert.match(cli.err, /past/);
    assert.equal((await gw.services.stores.accounts.listKeys(gw.accountId)).length, before, 'no key was stored');
    // A future expiry is fine.
    assert.equal(
      (await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, { name: 'soon', expires_at: future })).status,
      201,
    );
  });

  test('names are at most 256 characters: accounts (create, rename, PATCH /account) and keys (admin API, CLI)', async () => {
    const long = 'n'.repeat(257);
    const ok = 'n'.repeat(256);
    const create = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: long });
    assert.equal(create.status, 400);
    assert.equal(create.json.error.param, 'name');
    // A name of megabytes is refused from the body's declared size, before it is read (route-access.ts: 64 KiB).
    const huge = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: 'x'.repeat(2_000_000) });
    assert.equal(huge.status, 413);
    assert.equal(JSON.stringify(huge.json).length < 1000, true, 'the refusal does not echo the name');

    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: ok });
    assert.equal(made.status, 201);
    const renamed = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${made.json.data.id}`, admin, { name: long });
    assert.equal(renamed.status, 400);
    assert.equal(renamed.json.error.param, 'name');
    const own = await call('PATCH', `${gw.origin}/api/v1/account`, mgmt, { name: long });
    assert.equal(own.status, 400);
    assert.equal(own.json.error.param, 'name');
    assert.equal((await call('PATCH', `${gw.origin}/api/v1/account`, mgmt, { name: ok })).status, 200);

    const key = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, { name: long });
    assert.equal(key.status, 400);
    assert.equal(key.json.error.param, 'name');
    const cliKey = runCli(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', long);
    assert.equal(cliKey.code, 1);
    assert.match(cliKey.err, /at most 256 characters/);
    const cliAccount = runCli(gw.dir, 'accounts', 'create', '--name', long);
    assert.equal(cliAccount.code, 1);
    assert.match(cliAccount.err, /at most 256 characters/);
    assert.equal(
      (await gw.services.stores.accounts.listAccounts()).some((a) => a.name.length > 256),
      false,
    );
  });

  test('a default model no catalog serves is refused (admin create and update, PATCH /account, CLI), with the nearest id', async () => {
    const create = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: 'defaults', default_model: 'nobody/nothing' });
    assert.equal(create.status, 400);
    assert.equal(create.json.error.code, 'model_not_found');
    assert.equal(create.json.error.param, 'default_model');
    const typo = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { default_model: 'switchyard/sim-fas' });
    assert.equal(typo.status, 400);
    assert.equal(typo.json.error.code, 'model_not_found');
    assert.match(typo.json.error.message, /Did you mean "switchyard\/sim-fast"\?/);
    const own = await call('PATCH', `${gw.origin}/api/v1/account`, mgmt, { default_model: 'sim-nope-nope' });
    assert.equal(own.status, 400);
    assert.equal(own.json.error.code, 'model_not_found');
    const cli = runCli(gw.dir, 'accounts', 'update', '--account', gw.accountId, '--default-model', 'nobody/nothing');
    assert.equal(cli.code, 1);
    assert.match(cli.err, /not a model this gateway serves/);
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.defaultModel, null);

    // A name the catalog resolves (a bare name) is stored as the model's id.
    const bare = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { default_model: 'sim-pro' });
    assert.equal(bare.status, 200);
    assert.equal(bare.json.data.default_model, 'switchyard/sim-pro');
  });
});
