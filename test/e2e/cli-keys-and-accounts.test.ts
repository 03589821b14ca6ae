import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';
import { createExpiredKey } from '../support/admin-client.ts';

// Keys and accounts through the real CLI beside a running gateway: the listing people read
// (a header, aligned columns, every key's status including expiry), and the wrong inputs
// the gateway's own API refuses refused here too.

describe('keys and accounts from the CLI', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  test('keys list prints a header and aligned columns with limit, kind and expiry; an expired key is "expired"', async () => {
    const acct = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Listing');
    const limited = runCliJson(gw.dir, 'keys', 'create', '--account', acct.id, '--name', 'ci', '--limit', '3', '--expires', '2999-01-01');
    runCliJson(gw.dir, 'keys', 'create', '--account', acct.id, '--name', 'mgmt', '--management');
    // A key that has expired since it was made (the CLI refuses to make one in the past).
    await createExpiredKey(gw, acct.id, 'old', '2020-01-01T00:00:00Z');

    const r = runCli(gw.dir, 'keys', 'list', '--account', acct.id);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split('\n');
    assert.equal(lines.length, 4);
    const header = lines[0]!;
    assert.match(header, /^LABEL +NAME +ACCOUNT +STATUS +KIND +LIMIT +USED +EXPIRES +HASH$/);
    const rowOf = (name: string) => lines.find((l) => l.split(/ {2,}/)[1] === name)!;
    assert.match(rowOf('ci'), / active +api +\$3 +\$0 +2999-01-01T00:00:00\.000Z /);
    assert.match(rowOf('mgmt'), / active +management +- +\$0 +- /);
    assert.match(rowOf('old'), / expired +api /);
    // Aligned: every row's hash starts under the HASH header.
    const hashAt = header.indexOf('HASH');
    for (const line of lines.slice(1)) assert.match(line.slice(hashAt), /^[0-9a-f]{64}$/);
    assert.ok(r.out.includes(limited.hash));

    const json = runCliJson(gw.dir, 'keys', 'list', '--account', acct.id);
    assert.deepEqual(
      json.map((k: any) => [k.name, k.status, k.kind, k.limit_usd]),
      [
        ['ci', 'active', 'api', '3'],
        ['mgmt', 'active', 'management', null],
        ['old', 'expired', 'api', null],
      ],
    );
  });

  test('keys create refuses a past or malformed expiry and makes no key', () => {
    const acct = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Expiry');
    for (const expires of ['2020-01-01', 'next week', '2026-02-30']) {
      const r = runCli(gw.dir, 'keys', 'create', '--account', acct.id, '--expires', expires);
      assert.equal(r.code, 1, `${expires}: ${r.err}`);
      assert.match(r.err, /--expires <date>/);
    }
    assert.deepEqual(runCliJson(gw.dir, 'keys', 'list', '--account', acct.id), []);
  });

  test('an unknown account is an error for every command that takes one', () => {
    const cases = [
      ['keys', 'list', '--account', 'acct_doesnotexist'],
      ['keys', 'create', '--account', 'acct_doesnotexist'],
      ['accounts', 'update', '--account', 'acct_doesnotexist', '--tier', 'free'],
      ['credits', 'add', '--account', 'acct_doesnotexist', '--amount', '1'],
      ['credits', 'adjust', '--account', 'acct_doesnotexist', '--amount', '-1', '--reason', 'x'],
      ['usage', '--account', 'acct_doesnotexist'],
      ['generations', 'list', '--account', 'acct_doesnotexist'],
    ];
    for (const args of cases) {
      const r = runCli(gw.dir, ...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, /no account acct_doesnotexist/, args.join(' '));
      assert.equal(r.out, '');
    }
  });

  test('revoking a revoked key says so and changes nothing; enabling an active key likewise', () => {
    const { hash } = runCliJson(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', 'twice');
    const first = runCliJson(gw.dir, 'keys', 'revoke', hash);
    assert.equal(first.changed, true);
    const second = runCli(gw.dir, 'keys', 'revoke', hash);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /was already revoked; nothing changed/);
    assert.equal(runCliJson(gw.dir, 'keys', 'revoke', hash).changed, false);
    assert.equal(runCliJson(gw.dir, 'keys', 'enable', hash).changed, true);
    assert.match(runCli(gw.dir, 'keys', 'enable', hash).out, /already active; nothing changed/);
    const missing = runCli(gw.dir, 'keys', 'revoke', 'nope');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no key matches "nope"/);
  });

  test("--default-model is checked against the gateway's catalog; a request without model then uses it", async () => {
    const acct = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Defaults', '--credits', '5');
    const { key } = runCliJson(gw.dir, 'keys', 'create', '--account', acct.id);
    const bogus = runCli(gw.dir, 'accounts', 'update', '--account', acct.id, '--default-model', 'totally/bogus');
    assert.equal(bogus.code, 1);
    assert.match(bogus.err, /"totally\/bogus" is not a model this gateway serves/);
    const typo = runCli(gw.dir, 'accounts', 'update', '--account', acct.id, '--default-model', 'sim-fas');
    assert.match(typo.err, /Did you mean "switchyard\/sim-fast"\?/);
    const nothing = runCli(gw.dir, 'accounts', 'update', '--account', acct.id);
    assert.equal(nothing.code, 1);
    assert.match(nothing.err, /nothing to update/);
    const create = runCli(gw.dir, 'accounts', 'create', '--name', 'Bogus Default', '--default-model', 'totally/bogus');
    assert.equal(create.code, 1);
    assert.equal(
      runCliJson(gw.dir, 'accounts', 'list').some((a: any) => a.name === 'Bogus Default'),
      false,
    );
    assert.equal(runCliJson(gw.dir, 'accounts', 'list').find((a: any) => a.id === acct.id).default_model, null, 'unchanged');

    // A name the catalog resolves (a bare name) is stored as the model's id.
    const updated = runCliJson(gw.dir, 'accounts', 'update', '--account', acct.id, '--default-model', 'sim-pro');
    assert.equal(updated.default_model, 'switchyard/sim-pro');
    await gw.seeCliChanges();
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.json.model, 'switchyard/sim-pro');
  });

  test('a negative amount after a space is a value, not a flag: credits adjust --amount -5', () => {
    const acct = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Negative', '--credits', '10');
    const adjusted = runCliJson(gw.dir, 'credits', 'adjust', '--account', acct.id, '--amount', '-5', '--reason', 'refund reversal');
    assert.equal(adjusted.balance_usd, '5');
    const zero = runCli(gw.dir, 'credits', 'adjust', '--account', acct.id, '--amount', '0', '--reason', 'nothing');
    assert.equal(zero.code, 1);
    assert.match(zero.err, /non-zero amount/);
  });

  test('accounts list is a table with a header', () => {
    const r = runCli(gw.dir, 'accounts', 'list');
    assert.equal(r.code, 0, r.err);
    const [header, ...rows] = r.out.trimEnd().split('\n');
    assert.match(header!, /^ID +NAME +TYPE +TIER +BALANCE +DEFAULT MODEL +STATUS$/);
    assert.ok(rows.some((l) => l.startsWith(gw.accountId)));
  });
});
