import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import { BalanceOutOfBounds, MAX_AMOUNT_NANOS, MAX_BALANCE_NANOS } from '../../src/money/amount-bounds.ts';

const T = '2026-03-01T10:00:00.000Z';

// An operator's entry moves a balance only within ±MAX_BALANCE, checked in the statement
// that moves it: past it the entry is refused and nothing is written, so no sequence of
// grants or adjustments can overflow the 64-bit balance (or turn it into a float).
contractCase('ledger: an entry that would take a balance past its bound is refused whole, either way', async (s) => {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'user', tier: 'free', defaultModel: null, now: T });
  assert.equal(await s.ledger.addEntry('acct_1', 'credit', MAX_AMOUNT_NANOS, 'first', T), MAX_AMOUNT_NANOS);
  assert.equal(await s.ledger.addEntry('acct_1', 'credit', MAX_AMOUNT_NANOS, 'second', T), MAX_BALANCE_NANOS, 'up to the bound exactly');
  const refused = await s.ledger.addEntry('acct_1', 'credit', 1n, 'one nano too many', T).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof BalanceOutOfBounds, String(refused));
  assert.equal(refused.balanceNanos, MAX_BALANCE_NANOS);
  assert.match(refused.message, /\$2000000000\.000000001.*±\$2,000,000,000/);
  assert.equal(await s.accounts.balance('acct_1'), MAX_BALANCE_NANOS, 'nothing moved');
  assert.equal((await s.admin.ledger('acct_1', null, 10)).length, 2, 'nothing written');

  // Down, adjustments stop at −MAX_BALANCE the same way.
  for (let i = 0; i < 4; i++) await s.ledger.addEntry('acct_1', 'adjustment', -MAX_AMOUNT_NANOS, 'down', T);
  assert.equal(await s.accounts.balance('acct_1'), -MAX_BALANCE_NANOS);
  await assert.rejects(s.ledger.addEntry('acct_1', 'adjustment', -1n, 'below', T), BalanceOutOfBounds);
  assert.equal(await s.accounts.balance('acct_1'), -MAX_BALANCE_NANOS);
  await assert.rejects(s.ledger.addEntry('nope', 'credit', 1n, null, T), /no account nope/);
  const balance = await s.accounts.balance('acct_1');
  assert.equal(typeof balance, 'bigint');
  return { balance, totals: await s.ledger.totals('acct_1') };
});

// A refusal thrown inside a transaction (the bound above, a caller's 400) passes unchanged
// and rolls back: on Postgres it once became a SharedStateUnavailable (a 503 outage).
contractCase('transactions: a refusal thrown inside one passes unchanged, and nothing of it is written', async (s) => {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'user', tier: 'free', defaultModel: null, now: T });
  await s.ledger.addEntry('acct_1', 'credit', MAX_BALANCE_NANOS, 'full', T);
  const bound = await s
    .transaction(async (tx) => {
      await tx.accounts.updateAccount('acct_1', { tier: 'tier2' });
      return tx.ledger.addEntry('acct_1', 'credit', 1n, 'over', T);
    })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(bound instanceof BalanceOutOfBounds, `got ${String(bound)}`);
  class Refusal extends Error {}
  const own = await s
    .transaction(async () => {
      throw new Refusal('no');
    })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(own instanceof Refusal, `got ${String(own)}`);
  assert.equal((await s.accounts.getAccount('acct_1'))!.tier, 'free', 'rolled back');
  return { tier: (await s.accounts.getAccount('acct_1'))!.tier };
});
