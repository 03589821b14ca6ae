import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Every amount an operator sets is bounded (src/money/amount-bounds.ts): one grant,
// adjustment, initial credits or key limit at most $1,000,000,000 either way, a balance
// within ±$2,000,000,000 (checked by the store in the statement that moves it). Past a
// bound: 400 naming it (the CLI: a message and exit 1), nothing written, the account intact.

describe('amount bounds through the admin API and the CLI', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    admin = (await createAdminKey(gw)).key;
  });
  after(() => gw.close());

  const grant = (account: string, amount: unknown, kind = 'grant') =>
    call('POST', `${gw.origin}/api/v1/admin/accounts/${account}/credits`, admin, { kind, amount, reason: 'test' });

  test('a grant over the bound is a 400 naming it; grants up to the balance bound work; past it, 400 and the balance stays exact', async () => {
    const acct = (await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: 'rich' })).json.data.id as string;
    const huge = await grant(acct, '9000000000');
    assert.equal(huge.status, 400);
    assert.equal(huge.json.error.code, 'invalid_parameter');
    assert.equal(huge.json.error.param, 'amount');
    assert.match(huge.json.error.message, /\$1,000,000,000/);

    assert.equal((await grant(acct, '1000000000')).status, 201);
    const second = await grant(acct, 1_000_000_000);
    assert.equal(second.status, 201);
    assert.equal(second.json.data.balance_usd, '2000000000');
    const past = await grant(acct, '0.000000001');
    assert.equal(past.status, 400);
    assert.equal(past.json.error.param, 'amount');
    assert.match(past.json.error.message, /±\$2,000,000,000/);

    // The account works on: its balance is still an exact integer, reports answer.
    const shown = await call('GET', `${gw.origin}/api/v1/admin/accounts/${acct}`, admin);
    assert.equal(shown.status, 200);
    assert.equal(shown.json.data.balance_usd, '2000000000');
    assert.equal(await gw.services.stores.accounts.balance(acct), 2_000_000_000_000_000_000n);
    const ledger = await call('GET', `${gw.origin}/api/v1/admin/accounts/${acct}/ledger`, admin);
    assert.equal(ledger.json.data.length, 2, 'the refused entries wrote nothing');
    const key = (await gw.services.accountService.createKey({ accountId: acct })).key;
    const credits = await call('GET', `${gw.origin}/api/v1/credits`, key);
    assert.equal(credits.status, 200);
    assert.equal(credits.json.data.total_credits, 2_000_000_000);

    // Adjustments are bounded either way, and by the balance bound below zero.
    assert.equal((await grant(acct, '-1000000000.5', 'adjustment')).status, 400);
    for (let i = 0; i < 4; i++) assert.equal((await grant(acct, '-1000000000', 'adjustment')).status, 201);
    const below = await grant(acct, '-1', 'adjustment');
    assert.equal(below.status, 400);
    assert.equal(await gw.services.stores.accounts.balance(acct), -2_000_000_000_000_000_000n);
  });

  test('initial credits and key limits are bounded too (admin API)', async () => {
    const tooRich = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin, { name: 'x', credits: '1000000000.000000001' });
    assert.equal(tooRich.status, 400);
    assert.equal(tooRich.json.error.param, 'credits');
    assert.equal(
      (await gw.services.stores.accounts.listAccounts()).some((a) => a.name === 'x'),
      false,
    );

    const keyLimit = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, {
      name: 'k',
      limit: '99999999999999999999',
    });
    assert.equal(keyLimit.status, 400);
    assert.equal(keyLimit.json.error.param, 'limit');
    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, { name: 'k', limit: '1000000000' });
    assert.equal(made.status, 201);
    const raised = await call('PATCH', `${gw.origin}/api/v1/admin/keys/${made.json.data.hash}`, admin, { limit: '1000000001' });
    assert.equal(raised.status, 400);
    assert.equal(raised.json.error.param, 'limit');
  });

  test('the CLI refuses the same amounts with a clear message and exit 1 (no database error)', async () => {
    for (const args of [
      ['credits', 'add', '--account', gw.accountId, '--amount', '99999999999999999999'],
      ['credits', 'adjust', '--account', gw.accountId, '--amount', '-1000000001', '--reason', 'typo'],
      ['accounts', 'create', '--name', 'y', '--credits', '5000000000'],
      ['keys', 'create', '--account', gw.accountId, '--limit', '99999999999999999999'],
    ]) {
      const r = runCli(gw.dir, ...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, /at most \$1,000,000,000/, args.join(' '));
      assert.doesNotMatch(r.err, /BigInt|bind/);
    }
    const before = (await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos;
    const r = runCli(gw.dir, 'credits', 'add', '--account', gw.accountId, '--amount', '1000000000');
    assert.equal(r.code, 0, r.err);
    const again = runCli(gw.dir, 'credits', 'add', '--account', gw.accountId, '--amount', '1000000000');
    assert.equal(again.code, 1);
    assert.match(again.err, /±\$2,000,000,000/);
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos, before + 1_000_000_000_000_000_000n);
  });
});
