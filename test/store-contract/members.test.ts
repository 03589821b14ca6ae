import assert from 'node:assert/strict';
import type { Stores } from '../../src/store/store-contract.ts';
import type { MemberRecord } from '../../src/store/member-store.ts';
import { contractCase } from './both-backends.ts';

// The member store (member-store.ts) over both engines: emails unique per account without
// case, budgets as bigint nano-USD, keys moved between members, a member's sessions ended
// (also by the account's revocation), and a sign-in link redeemed once only, never after expiry.

const T0 = '2026-03-01T00:00:00.000Z';
const T1 = '2026-03-01T00:10:00.000Z';
const T2 = '2026-03-01T01:00:00.000Z';

const member = (id: string, email: string, over: Partial<MemberRecord> = {}): MemberRecord => ({
  id,
  accountId: 'acct_1',
  email,
  name: id,
  role: 'member',
  allowedModels: null,
  budget: null,
  createdAt: T0,
  updatedAt: null,
  ...over,
});

async function seed(s: Stores): Promise<void> {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'organization', tier: 'free', defaultModel: null, now: T0 });
  await s.accounts.createAccount({ id: 'acct_2', name: 'two', accountType: 'organization', tier: 'free', defaultModel: null, now: T0 });
  await s.accounts.createKey({
    hash: 'k1',
    accountId: 'acct_1',
    name: 'k1',
    label: 'k1',
    limitNanos: null,
    isManagement: false,
    expiresAt: null,
    now: T0,
  });
  await s.accounts.createKey({
    hash: 'k2',
    accountId: 'acct_1',
    name: 'k2',
    label: 'k2',
    limitNanos: null,
    isManagement: false,
    expiresAt: null,
    now: T0,
  });
}

contractCase('members: unique emails without case, budgets in nano-USD, keys moved, sessions ended, links used once', async (s) => {
  await seed(s);
  await s.members.create(
    member('mem_a', 'Ann@Example.com', {
      role: 'admin',
      allowedModels: ['anthropic/*'],
      budget: { amountNanos: 12_500_000_000n, reset: 'monthly' },
    }),
  );
  await s.members.create(member('mem_b', 'bob@example.com'));
  await s.members.create(member('mem_c', 'ann@example.com', { accountId: 'acct_2' }));
  await assert.rejects(s.members.create(member('mem_d', 'ANN@example.com')), 'the same email twice in an account');
  const ann = await s.members.byEmail('acct_1', 'ann@EXAMPLE.com');
  assert.equal(ann?.id, 'mem_a');
  assert.deepEqual(ann?.budget, { amountNanos: 12_500_000_000n, reset: 'monthly' });
  assert.deepEqual(
    (await s.members.withEmail('ann@example.com')).map((m) => m.id),
    ['mem_a', 'mem_c'],
  );
  const updated = await s.members.update('mem_b', { role: 'viewer', budget: null, allowedModels: ['a/b'] }, T1);
  assert.equal(updated?.role, 'viewer');
  assert.equal(await s.members.countOwners('acct_1'), 0);

  await s.members.setKeyMember('k1', 'mem_a');
  await s.members.setKeyMember('k2', 'mem_a');
  assert.equal((await s.accounts.getKey('k1'))?.memberId, 'mem_a');
  assert.deepEqual(await s.members.reassignKeys('mem_a', 'mem_b'), ['k1', 'k2']);
  assert.deepEqual(await s.members.keyHashes('mem_b'), ['k1', 'k2']);

  await s.sessions.insert('s1', 'member:mem_a', T0, T2, T0, 20, 'mem_a');
  await s.sessions.insert('s2', 'member:mem_b', T0, T2, T0, 20, 'mem_b');
  assert.equal((await s.sessions.find('s1'))?.memberId, 'mem_a');
  await s.members.revokeSessions('mem_a', T1);
  assert.equal((await s.sessions.find('s1'))?.revokedAt, T1);
  await s.sessions.revokeAccount('acct_1', T1);
  assert.equal((await s.sessions.find('s2'))?.revokedAt, T1, "the account's revocation ends its members' sessions");

  await s.members.insertLink({ tokenHash: 'h1', memberId: 'mem_b', createdAt: T0, expiresAt: T1, usedAt: null }, T0);
  await s.members.insertLink({ tokenHash: 'h2', memberId: 'mem_b', createdAt: T0, expiresAt: T1, usedAt: null }, T0);
  assert.equal(await s.members.redeemLink('h1', T0), 'mem_b');
  assert.equal(await s.members.redeemLink('h1', T0), undefined, 'used once');
  assert.equal(await s.members.redeemLink('h2', T2), undefined, 'expired');
  assert.equal(await s.members.redeemLink('nope', T0), undefined);

  assert.equal(await s.members.remove('mem_a'), true);
  assert.equal(await s.members.get('mem_a'), undefined);
  return { members: await s.members.list('acct_1'), keys: await s.members.keyHashes('mem_b') };
});
