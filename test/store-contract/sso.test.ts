import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';

// Single sign-on's store (sso-store.ts) over both engines: a sign-in in progress is taken
// once only — two callbacks racing with one state, on two instances, cannot both have it —
// never after it expired, and expired rows go; a removed member is remembered per account
// without case until cleared.

const T0 = '2026-03-01T00:00:00.000Z';
const T1 = '2026-03-01T00:10:00.000Z';
const T2 = '2026-03-01T01:00:00.000Z';

contractCase('sso: a sign-in state is taken once, never after its expiry; removed members remembered per account', async (s) => {
  const row = (stateHash: string, expiresAt = T1) => ({
    stateHash,
    nonce: `n-${stateHash}`,
    codeVerifier: `v-${stateHash}`,
    createdAt: T0,
    expiresAt,
  });
  await s.sso.insertLogin(row('a'), T0);
  await s.sso.insertLogin(row('b'), T0);
  await s.sso.insertLogin(row('old', T0), T0);
  const raced = await Promise.all([s.sso.takeLogin('a', T0), s.sso.takeLogin('a', T0)]);
  assert.deepEqual(
    raced.filter((r) => r !== undefined),
    [{ nonce: 'n-a', codeVerifier: 'v-a' }],
    'one of two racing callbacks has it',
  );
  assert.equal(await s.sso.takeLogin('a', T0), undefined, 'taken once');
  assert.equal(await s.sso.takeLogin('b', T2), undefined, 'expired');
  assert.equal(await s.sso.takeLogin('nope', T0), undefined);
  // An insert purges what expired before it.
  await s.sso.insertLogin(row('c', T2), T1);
  assert.equal(await s.sso.takeLogin('old', '2000-01-01T00:00:00.000Z'), undefined, 'purged');
  assert.deepEqual(await s.sso.takeLogin('c', T1), { nonce: 'n-c', codeVerifier: 'v-c' });

  await s.sso.markRemoved('acct_1', 'Ann@Example.com', T0);
  await s.sso.markRemoved('acct_1', 'ann@example.com', T1);
  assert.equal(await s.sso.isRemoved('acct_1', 'ANN@example.com'), true);
  assert.equal(await s.sso.isRemoved('acct_2', 'ann@example.com'), false);
  await s.sso.clearRemoved('acct_1', 'ann@EXAMPLE.com');
  assert.equal(await s.sso.isRemoved('acct_1', 'ann@example.com'), false);
});
