import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';

// Operator credits and accounts through the real CLI, seen through the gateway's HTTP API:
// adding credits takes only positive amounts, corrections are adjustments with a reason,
// GET /api/v1/credits always agrees with the balance, and a failed `accounts create`
// leaves nothing behind.

describe('credits and accounts from the CLI', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ credits: '20' });
  });
  after(() => gw.close());

  async function creditsAndBalance(key: string): Promise<{ credits: number; usage: number; balance: number }> {
    const auth = { authorization: `Bearer ${key}` };
    const c = (await (await fetch(`${gw.origin}/api/v1/credits`, { headers: auth })).json()) as {
      data: { total_credits: number; total_usage: number };
    };
    const k = (await (await fetch(`${gw.origin}/v1/key?details=true`, { headers: auth })).json()) as { data: { balance: number } };
    return { credits: c.data.total_credits, usage: c.data.total_usage, balance: k.data.balance };
  }

  test('credits add refuses negative and zero amounts, and the balance does not move', async () => {
    const before = await creditsAndBalance(gw.key);
    for (const amount of ['--amount=-100', '--amount=-0.5']) {
      const r = runCli(gw.dir, 'credits', 'add', '--account', gw.accountId, amount);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /must be positive/);
      assert.match(r.err, /credits adjust/, 'the message names the command that takes credits away');
    }
    const spaced = runCli(gw.dir, 'credits', 'add', '--account', gw.accountId, '--amount', '-100');
    assert.equal(spaced.code, 1, spaced.err);
    assert.match(spaced.err, /must be positive/, 'a negative amount after a space is a value, not a flag');
    const zero = runCli(gw.dir, 'credits', 'add', '--account', gw.accountId, '--amount', '0');
    assert.equal(zero.code, 1);
    assert.match(zero.err, /positive/);
    assert.deepEqual(await creditsAndBalance(gw.key), before);
  });

  test('credits adjust needs a reason, writes a ledger row, and /api/v1/credits stays equal to the balance', async () => {
    // Some usage first, so credits − usage = balance is not trivially credits = balance.
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(chat.status, 200, chat.text);
    const start = await creditsAndBalance(gw.key);
    assert.ok(start.usage > 0);

    const noReason = runCli(gw.dir, 'credits', 'adjust', '--account', gw.accountId, '--amount=-5');
    assert.equal(noReason.code, 1);
    assert.match(noReason.err, /required option '--reason <text>' not specified/);
    const blankReason = runCli(gw.dir, 'credits', 'adjust', '--account', gw.accountId, '--amount=-5', '--reason', '  ');
    assert.equal(blankReason.code, 1);
    assert.match(blankReason.err, /needs a reason/);

    const adjusted = runCliJson(gw.dir, 'credits', 'adjust', '--account', gw.accountId, '--amount=-5', '--reason', 'refund reversal');
    const after = await creditsAndBalance(gw.key);
    assert.equal(Number(adjusted.balance), after.balance);
    assert.equal(after.balance, Math.round((start.balance - 5) * 1e9) / 1e9);
    assert.equal(Math.round((after.credits - after.usage) * 1e9) / 1e9, after.balance, '/credits agrees with the balance');
    assert.equal(after.usage, start.usage, 'an adjustment is not usage');

    const row = gw.db
      .prepare(`SELECT kind, amount_nanos, note FROM ledger WHERE account_id = ? ORDER BY id DESC LIMIT 1`)
      .get(gw.accountId) as { kind: string; amount_nanos: number; note: string };
    assert.deepEqual({ ...row }, { kind: 'adjustment', amount_nanos: -5_000_000_000, note: 'refund reversal' });

    // An upward adjustment is a correction too, and still agrees.
    runCliJson(gw.dir, 'credits', 'adjust', '--account', gw.accountId, '--amount', '1.25', '--reason', 'goodwill');
    const up = await creditsAndBalance(gw.key);
    assert.equal(Math.round((up.credits - up.usage) * 1e9) / 1e9, up.balance);
    assert.equal(up.balance, Math.round((after.balance + 1.25) * 1e9) / 1e9);
  });

  test('accounts create with a malformed amount fails and leaves no account; the retry makes exactly one', () => {
    const bad = runCli(gw.dir, 'accounts', 'create', '--name', 'Comma Corp', '--credits', '12,50');
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /not a USD amount/);
    assert.doesNotMatch(bad.err, /at .*\.ts:\d+/, 'no stack trace');
    const negative = runCli(gw.dir, 'accounts', 'create', '--name', 'Comma Corp', '--credits=-3');
    assert.notEqual(negative.code, 0);
    const unknownTier = runCli(gw.dir, 'accounts', 'create', '--name', 'Comma Corp', '--credits', '3', '--tier', 'platinum');
    assert.notEqual(unknownTier.code, 0);
    assert.equal(runCliJson(gw.dir, 'accounts', 'list').filter((a: any) => a.name === 'Comma Corp').length, 0, 'nothing left behind');

    const ok = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Comma Corp', '--credits', '12.50');
    assert.equal(ok.balance_usd, '12.5');
    const all = runCliJson(gw.dir, 'accounts', 'list').filter((a: any) => a.name === 'Comma Corp');
    assert.deepEqual(
      all.map((a: any) => a.id),
      [ok.id],
    );
  });
});
