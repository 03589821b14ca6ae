import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../store/sqlite/sqlite-stores.ts';
import { MemberService } from './member-service.ts';

// ensureMember: the just-in-time creation a single sign-on's first sign-in uses.

test('ensureMember creates the member once, keeps an existing one as it is, and audits and emits the creation', async () => {
  const stores = openSqliteStores({ database: { path: join(mkdtempSync(join(tmpdir(), 'switchyard-members-')), 'db.sqlite') } });
  try {
    await stores.accounts.createAccount({
      id: 'acct_1',
      name: 'one',
      accountType: 'organization',
      tier: 'free',
      defaultModel: null,
      now: '2026-01-01T00:00:00.000Z',
    });
    const events: string[] = [];
    const service = new MemberService(stores, {
      changed: () => {},
      keyChanged: () => {},
      emit: async (_a, type) => {
        events.push(type);
      },
    });
    const actor = { keyHash: 'sso', label: 'sso sign-in', accountId: 'acct_1' };
    const first = await service.ensureMember(actor, 'acct_1', 'Ann@Example.com', 'Ann', 'viewer');
    const again = await service.ensureMember(actor, 'acct_1', 'ann@example.com', 'Someone Else', 'admin');
    assert.equal(again.id, first.id);
    assert.equal(again.role, 'viewer');
    assert.equal(again.name, 'Ann');
    assert.deepEqual(events, ['member.added']);
    assert.equal((await stores.audit.list({ action: 'member.add' }, null, 10)).length, 1);
    await assert.rejects(service.ensureMember(actor, 'acct_1', 'not an email', 'x', 'member'), /"email" must be an email address/);
  } finally {
    await stores.close();
  }
});
