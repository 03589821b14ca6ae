import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';

const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-01T11:00:00.000Z';
const LATER = '2026-03-09T00:00:00.000Z';

contractCase("sessions: revoking an account's ends the sessions of every key of it, and of no other account", async (s) => {
  for (const id of ['acct_a', 'acct_b'])
    await s.accounts.createAccount({ id, name: id, accountType: 'user', tier: 'free', defaultModel: null, now: T0 });
  for (const [hash, acct, management] of [
    ['ka1', 'acct_a', true],
    ['ka2', 'acct_a', true],
    ['kb1', 'acct_b', true],
  ] as const) {
    await s.accounts.createKey({
      hash,
      accountId: acct,
      name: hash,
      label: hash,
      limitNanos: null,
      isManagement: management,
      expiresAt: null,
      now: T0,
    });
  }
  await s.sessions.insert('a1', 'ka1', T0, LATER, T0, 20);
  await s.sessions.insert('a2', 'ka2', T0, LATER, T0, 20);
  await s.sessions.insert('a1-again', 'ka1', T0, LATER, T0, 20);
  await s.sessions.insert('b1', 'kb1', T0, LATER, T0, 20);
  await s.sessions.revoke('a2', T0);

  await s.sessions.revokeAccount('acct_a', T1);
  assert.equal((await s.sessions.find('a1'))?.revokedAt, T1);
  assert.equal((await s.sessions.find('a1-again'))?.revokedAt, T1);
  assert.equal((await s.sessions.find('a2'))?.revokedAt, T0, 'an ended session keeps when it ended');
  assert.equal((await s.sessions.find('b1'))?.revokedAt, null, "another account's session lives on");
  return { a1: await s.sessions.find('a1'), a2: await s.sessions.find('a2'), b1: await s.sessions.find('b1') };
});
