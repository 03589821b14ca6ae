import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import type { Stores } from '../../src/store/store-contract.ts';
import type { PostgresStores } from '../../src/store/postgres/postgres-stores.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';

async function seed(s: Stores): Promise<void> {
  // Ids whose byte order differs from a locale's order (case, '_' and '-'): pages must follow bytes.
  for (const [id, name, at] of [
    ['acct_B', 'Beta Org', T0],
    ['acct_a', 'alpha', T0],
    ['acct_-z', '50%_off', T1],
  ] as const) {
    await s.accounts.createAccount({ id, name, accountType: 'user', tier: 'free', defaultModel: null, now: at });
  }
  await s.accounts.createKey({
    hash: 'h2',
    accountId: 'acct_a',
    name: 'two',
    label: 'sk-2',
    limitNanos: 5_000_000_000n,
    isManagement: false,
    expiresAt: null,
    now: T1,
  });
  await s.accounts.createKey({
    hash: 'h1',
    accountId: 'acct_a',
    name: 'one',
    label: 'sk-1',
    limitNanos: null,
    isManagement: true,
    expiresAt: T1,
    now: T0,
  });
  await s.accounts.createKey({
    hash: 'h3',
    accountId: 'acct_B',
    name: 'adm',
    label: 'sk-3',
    limitNanos: null,
    isManagement: false,
    isAdmin: true,
    expiresAt: null,
    now: T0,
  });
}

contractCase('accounts: create, get, list in creation order, count, update with limits override', async (s) => {
  await seed(s);
  const got = await s.accounts.getAccount('acct_a');
  assert.equal(got?.name, 'alpha');
  assert.equal(got?.balanceNanos, 0n);
  assert.equal(got?.isActive, true);
  assert.equal(await s.accounts.getAccount('nope'), undefined);
  const list = (await s.accounts.listAccounts()).map((a) => a.id);
  assert.deepEqual(list, ['acct_B', 'acct_a', 'acct_-z']);
  assert.equal(await s.accounts.countAccounts(), 3);
  const updated = await s.accounts.updateAccount('acct_a', { tier: 'tier2', isActive: false, limitsOverride: { requests_per_minute: 7 } });
  assert.equal(updated?.tier, 'tier2');
  assert.equal(updated?.isActive, false);
  assert.deepEqual(updated?.limitsOverride, { requests_per_minute: 7 });
  const cleared = await s.accounts.updateAccount('acct_a', { isActive: true, limitsOverride: null });
  assert.equal(cleared?.isActive, true);
  assert.equal(cleared?.limitsOverride, null);
  assert.equal(await s.accounts.updateAccount('nope', { tier: 'x' }), undefined);
  return { list, updated, cleared };
});

contractCase('keys: create, lookup by hash, list, update, deactivate (operator mark is final), touch, delete', async (s) => {
  await seed(s);
  const h1 = await s.accounts.getKey('h1');
  assert.equal(h1?.isManagement, true);
  assert.equal(h1?.expiresAt, T1);
  assert.equal((await s.accounts.getKey('h3'))?.isAdmin, true);
  assert.equal((await s.accounts.getKey('h2'))?.limitNanos, 5_000_000_000n);
  assert.equal(await s.accounts.getKey('missing'), undefined);
  assert.deepEqual(
    (await s.accounts.listKeys()).map((k) => k.hash),
    ['h1', 'h3', 'h2'],
  );
  assert.deepEqual(
    (await s.accounts.listKeys('acct_a')).map((k) => k.hash),
    ['h1', 'h2'],
  );
  const renamed = await s.accounts.updateKey('h2', { name: 'renamed', limitNanos: null }, T1);
  assert.equal(renamed?.name, 'renamed');
  assert.equal(renamed?.limitNanos, null);
  assert.equal(renamed?.updatedAt, T1);
  assert.equal(await s.accounts.setKeyActive('h2', false, 'operator'), true);
  await s.accounts.updateKey('h2', { isActive: false }, T1);
  const revoked = await s.accounts.getKey('h2');
  assert.equal(revoked?.isActive, false);
  assert.equal(revoked?.disabledBy, 'operator');
  assert.equal(await s.accounts.setKeyActive('nope', false, 'account'), false);
  await s.accounts.touchKeys(
    new Map([
      ['h1', T1],
      ['h3', T0],
    ]),
  );
  await s.accounts.touchKeys(new Map([['h1', T0]])); // never backwards
  assert.equal((await s.accounts.getKey('h1'))?.lastUsed, T1);
  assert.equal(await s.accounts.deleteKey('h3'), true);
  assert.equal(await s.accounts.deleteKey('h3'), false);
  return { keys: await s.accounts.listKeys() };
});

contractCase('admin account search: id or part of the name (any case, wildcards literal), keyset pages in creation order', async (s) => {
  await seed(s);
  const all = await s.admin.accountIds(null, null, 10);
  assert.deepEqual(
    all.map((r) => r.id),
    ['acct_B', 'acct_a', 'acct_-z'],
  );
  const page2 = await s.admin.accountIds(null, { createdAt: all[0]!.createdAt, id: all[0]!.id }, 1);
  assert.deepEqual(
    page2.map((r) => r.id),
    ['acct_a'],
  );
  assert.deepEqual(
    (await s.admin.accountIds('BETA', null, 10)).map((r) => r.id),
    ['acct_B'],
  );
  assert.deepEqual(
    (await s.admin.accountIds('acct_a', null, 10)).map((r) => r.id),
    ['acct_a'],
  );
  assert.deepEqual(
    (await s.admin.accountIds('%_', null, 10)).map((r) => r.id),
    ['acct_-z'],
  );
  assert.equal(await s.admin.rename('acct_a', 'Alpha Two'), true);
  assert.equal(await s.admin.rename('nope', 'x'), false);
  assert.deepEqual(
    (await s.admin.accountIds('two', null, 10)).map((r) => r.id),
    ['acct_a'],
  );
  return { all, page2 };
});

contractCase('transactions: all or nothing, and a nested one joins the open one', async (s) => {
  await seed(s);
  await assert.rejects(
    s.transaction(async (tx) => {
      await tx.admin.rename('acct_a', 'lost');
      await tx.transaction(async (inner) => inner.ledger.addEntry('acct_a', 'credit', 5n, null, T1));
      throw new Error('abandon');
    }),
    /abandon/,
  );
  assert.equal((await s.accounts.getAccount('acct_a'))?.name, 'alpha');
  assert.equal(await s.accounts.balance('acct_a'), 0n);
  const balance = await s.transaction(async (tx) => {
    await tx.admin.rename('acct_a', 'kept');
    return tx.ledger.addEntry('acct_a', 'credit', 5n, null, T1);
  });
  assert.equal(balance, 5n);
  assert.equal((await s.accounts.getAccount('acct_a'))?.name, 'kept');
  return { balance };
});

contractCase('exclusive: a second check-then-create waits for the first to commit (one operator account, not two)', async (s) => {
  const createIfNone = async (tx: Stores, id: string, counted: () => void, gate: Promise<void>): Promise<boolean> => {
    const n = await tx.accounts.countAccounts();
    counted();
    await gate;
    if (n > 0) return false;
    await tx.accounts.createAccount({ id, name: 'operator', accountType: 'organization', tier: 'enterprise', defaultModel: null, now: T0 });
    return true;
  };
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let firstCounted!: () => void;
  const firstHasCounted = new Promise<void>((r) => {
    firstCounted = r;
  });
  let secondCounted = false;
  const first = s.exclusive('bootstrap-operator', (tx) => createIfNone(tx, 'acct_op1', firstCounted, gate));
  await firstHasCounted;
  const second = s.exclusive('bootstrap-operator', (tx) =>
    createIfNone(
      tx,
      'acct_op2',
      () => {
        secondCounted = true;
      },
      Promise.resolve(),
    ),
  );
  // The first goes on once the second has either counted too (no exclusion) or is waiting for the lock.
  if (s.engine === 'postgres') {
    const pool = (s as PostgresStores).pool;
    for (;;) {
      if (secondCounted) break;
      const waiting = await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
      if (waiting.rows[0].n > 0) break;
    }
  }
  release();
  const made = await Promise.all([first, second]);
  assert.deepEqual(made, [true, false]);
  assert.equal(await s.accounts.countAccounts(), 1);
  return made;
});

contractCase('keys: counted per account, paged in creation order (keyset and offset), filtered to enabled API keys', async (s) => {
  await seed(s);
  // Hashes whose byte order differs from a locale's order, created at the same instant.
  for (const hash of ['hB', 'ha', 'h_', 'h-']) {
    await s.accounts.createKey({
      hash,
      accountId: 'acct_a',
      name: hash,
      label: hash,
      limitNanos: null,
      isManagement: false,
      expiresAt: null,
      now: T1,
    });
  }
  await s.accounts.setKeyActive('ha', false, 'account');
  assert.equal(await s.accounts.countKeys('acct_a'), 6);
  assert.equal(await s.accounts.countKeys('acct_B'), 1);
  assert.equal(await s.accounts.countKeys('nope'), 0);
  const walk = async (filter: Parameters<Stores['accounts']['keysPage']>[0], size: number): Promise<string[]> => {
    const out: string[] = [];
    let after: [string, string] | null = null;
    for (;;) {
      const page = await s.accounts.keysPage(filter, after, size);
      out.push(...page.map((k) => k.hash));
      if (page.length < size) return out;
      const last = page[page.length - 1]!;
      after = [last.createdAt, last.hash];
    }
  };
  const ofA = await walk({ accountId: 'acct_a' }, 2);
  assert.deepEqual(ofA, ['h1', 'h-', 'h2', 'hB', 'h_', 'ha']);
  assert.deepEqual(await walk({}, 3), ['h1', 'h3', 'h-', 'h2', 'hB', 'h_', 'ha']);
  const apiOnly = await walk({ accountId: 'acct_a', apiKeysOnly: true, activeOnly: true }, 10);
  assert.deepEqual(apiOnly, ['h-', 'h2', 'hB', 'h_']);
  const skipped = (await s.accounts.keysPage({ accountId: 'acct_a', apiKeysOnly: true }, null, 2, 1)).map((k) => k.hash);
  assert.deepEqual(skipped, ['h2', 'hB']);
  return { ofA, apiOnly, skipped };
});
