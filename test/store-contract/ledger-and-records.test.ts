import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import type { Stores } from '../../src/store/store-contract.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

const DAY1 = '2026-03-01T10:00:00.000Z';
const DAY2 = '2026-03-02T10:00:00.000Z';

function record(id: string, over: Partial<SettlementRecord> = {}): SettlementRecord {
  return {
    id,
    accountId: 'acct_1',
    keyHash: 'k1',
    costNanos: 1_000n,
    holdRowWritten: false,
    model: 'a/m',
    provider: 'p',
    upstreamModel: 'm',
    upstreamId: 'up-1',
    dialect: 'chat',
    streamed: true,
    cancelled: false,
    status: 'success',
    errorCode: null,
    finishReason: 'stop',
    nativeFinishReason: 'end_turn',
    tokensPrompt: 10,
    tokensCompletion: 20,
    tokensCacheRead: 1,
    tokensCacheWrite: 2,
    tokensReasoning: 3,
    costBreakdown: { prompt: '0.0000005', completion: '0.0000005' },
    latencyMs: 40,
    firstTokenMs: 7,
    attempts: [
      { provider: 'p', status: 200 },
      { provider: 'q', status: 500 },
    ],
    httpReferer: 'https://x.test',
    xTitle: 'App',
    endUser: 'u1',
    createdAt: DAY1,
    ...over,
  };
}

async function seed(s: Stores): Promise<void> {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'organization', tier: 'free', defaultModel: 'a/m', now: DAY1 });
  await s.accounts.createAccount({ id: 'acct_2', name: 'two', accountType: 'user', tier: 'free', defaultModel: null, now: DAY1 });
  for (const [hash, acct] of [
    ['k1', 'acct_1'],
    ['k2', 'acct_1'],
    ['k3', 'acct_2'],
  ] as const) {
    await s.accounts.createKey({
      hash,
      accountId: acct,
      name: hash,
      label: hash,
      limitNanos: null,
      isManagement: false,
      expiresAt: null,
      now: DAY1,
    });
  }
  await s.ledger.addEntry('acct_1', 'credit', 10_000_000n, 'grant', DAY1);
  await s.ledger.addEntry('acct_2', 'credit', 5_000n, null, DAY1);
  // A hold row written in one batch, settled in the next.
  await s.ledger.settle([{ id: 'g1', accountId: 'acct_1', keyHash: 'k1', amountNanos: 9_000n, createdAt: DAY1, expiresAt: DAY2 }], []);
  await s.ledger.settle(
    [],
    [
      record('g1', { holdRowWritten: true }),
      record('g2', { keyHash: 'k2', model: 'b/m', costNanos: 2_500n, createdAt: DAY2, xTitle: null, latencyMs: null }),
      record('g3', { status: 'error', errorCode: 'upstream_error', costNanos: 0n, createdAt: DAY2, provider: 'q', attempts: [] }),
      record('g4', { accountId: 'acct_2', keyHash: 'k3', costNanos: 700n, createdAt: DAY1 }),
    ],
  );
  // A charge settled again is never charged twice (the balances below): both engines skip it,
  // the generation record's unique id deciding (a charge is written only with its record:
  // migration 27 dropped the ledger's own unique index of generation ids, through which SQLite
  // refused the batch whole before).
  const again = await s.ledger.settle([], [record('g1')]).then(
    () => 'skipped',
    () => 'refused',
  );
  assert.equal(again, 'skipped');
}

contractCase(
  'ledger: entries move the balance, totals agree, settle charges once (a repeat is skipped, on both engines), pages newest first',
  async (s) => {
    await seed(s);
    assert.equal(await s.accounts.balance('acct_1'), 10_000_000n - 1_000n - 2_500n);
    assert.equal(await s.accounts.balance('acct_2'), 5_000n - 700n);
    assert.deepEqual(await s.ledger.totals('acct_1'), { creditsNanos: 10_000_000n, usageNanos: 3_500n });
    assert.equal(await s.ledger.addEntry('acct_1', 'adjustment', -500n, 'refund reversal', DAY2), 10_000_000n - 4_000n);
    await assert.rejects(s.ledger.addEntry('acct_1', 'credit', 0n, null, DAY2), /positive/);
    await assert.rejects(s.ledger.addEntry('nope', 'credit', 1n, null, DAY2), /no account nope/);
    assert.equal((await s.accounts.getKey('k1'))?.usageNanos, 1_000n);
    assert.equal((await s.accounts.getKey('k2'))?.lastUsed, DAY2);
    const page1 = await s.admin.ledger('acct_1', null, 2);
    assert.deepEqual(
      page1.map((e) => [e.kind, e.amountNanos, e.generationId]),
      [
        ['adjustment', -500n, null],
        ['charge', -2_500n, 'g2'],
      ],
    );
    const page2 = await s.admin.ledger('acct_1', page1[1]!.id, 10);
    assert.deepEqual(
      page2.map((e) => [e.kind, e.amountNanos, e.note]),
      [
        ['charge', -1_000n, null],
        ['credit', 10_000_000n, 'grant'],
      ],
    );
    // Row ids are cursors, not compared: Postgres's sequence skips the numbers of a rolled-back batch.
    const noId = (entries: typeof page1) => entries.map(({ id: _, ...e }) => e);
    return { page1: noId(page1), page2: noId(page2), totals: await s.ledger.totals('acct_1') };
  },
);

contractCase("generation records: read back whole after settle, ids by filter newest first, a key's window", async (s) => {
  await seed(s);
  const g1 = await s.generations.getRecord('g1');
  const { holdRowWritten: _, ...expected } = record('g1', { holdRowWritten: true });
  assert.deepEqual(g1, { ...expected, cacheHit: false });
  assert.equal(await s.generations.getRecord('nope'), undefined);
  assert.deepEqual(await s.generations.ids({ accountId: 'acct_1', limit: 10 }), ['g3', 'g2', 'g1']);
  assert.deepEqual(await s.generations.ids({ status: 'error', limit: 10 }), ['g3']);
  assert.deepEqual(await s.generations.ids({ since: DAY2, limit: 10 }), ['g3', 'g2']);
  assert.deepEqual(await s.generations.ids({ until: DAY2, model: 'a/m', limit: 1 }), ['g4']);
  assert.deepEqual(await s.generations.keyUsageSince('k1', DAY1), { costNanos: 1_000n, requests: 2 });
  return { g1, g2: await s.generations.getRecord('g2') };
});

contractCase('generation records: a later MCP turn keeps its parent id and its MCP calls (migration 18)', async (s) => {
  await seed(s);
  const calls = [
    { server: 'docs', tool: 'weather', ms: 12, status: 'ok' },
    { server: 'docs', tool: 'hang', ms: 500, status: 'timeout' },
  ];
  await s.ledger.settle([], [record('g5', { parentId: 'g1', toolCalls: calls, createdAt: DAY2 })]);
  const g5 = await s.generations.getRecord('g5');
  assert.equal(g5?.parentId, 'g1');
  assert.deepEqual(g5?.toolCalls, calls);
  assert.equal((await s.generations.getRecord('g1'))?.parentId, undefined);
  return { g5 };
});

contractCase('generation records: the guardrail rules that fired, as written, and none read back as none (migration 26)', async (s) => {
  await seed(s);
  const hits = [
    { name: 'mail', detector: 'email', action: 'redact' as const },
    { name: 'project', detector: 'pattern', action: 'redact' as const },
  ];
  await s.ledger.settle([], [record('g6', { guardrails: hits, createdAt: DAY2 })]);
  const g6 = await s.generations.getRecord('g6');
  assert.deepEqual(g6?.guardrails, hits);
  assert.equal((await s.generations.getRecord('g1'))?.guardrails, undefined);
  return { g6 };
});

contractCase('activity: the list shape, filters and keyset pages on (created_at, id)', async (s) => {
  await seed(s);
  const one = await s.activity.get('g1');
  assert.equal(one?.attempt_count, 2n);
  assert.equal(one?.cost_nanos, 1_000n);
  assert.equal(one?.streamed, 1n);
  const first = await s.activity.list({}, 2, null);
  assert.deepEqual(
    first.map((r) => r.id),
    ['g3', 'g2'],
  );
  const next = await s.activity.list({}, 2, { createdAt: first[1]!.created_at, id: first[1]!.id });
  assert.deepEqual(
    next.map((r) => r.id),
    ['g4', 'g1'],
  );
  assert.deepEqual(
    (await s.activity.list({ accountId: 'acct_1', provider: 'q' }, 10, null)).map((r) => r.id),
    ['g3'],
  );
  assert.deepEqual(
    (await s.activity.list({ keyHash: 'k1', status: 'success', from: DAY1, to: DAY2 }, 10, null)).map((r) => r.id),
    ['g1'],
  );
  assert.deepEqual(
    (await s.activity.list({ model: 'b/m' }, 10, null)).map((r) => r.id),
    ['g2'],
  );
  return { first, next };
});

contractCase('usage: rollup aggregates by every group, totals, and one account by day, model, key', async (s) => {
  await seed(s);
  const out: Record<string, unknown> = {};
  for (const group of ['day', 'model', 'provider', 'key', 'app', 'account'] as const) {
    out[`one:${group}`] = await s.usage.aggregate('acct_1', group, '2026-03-01', '2026-03-02');
    out[`all:${group}`] = await s.usage.aggregate(null, group, '2026-03-01', '2026-03-02');
  }
  const byDay = out['one:day'] as Array<{ group: string; requests: number; costNanos: bigint }>;
  assert.deepEqual(
    byDay.map((r) => [r.group, r.requests, r.costNanos]),
    [
      ['2026-03-01', 1, 1_000n],
      ['2026-03-02', 2, 2_500n],
    ],
  );
  const byModel = out['all:model'] as Array<{ group: string; costNanos: bigint }>;
  assert.deepEqual(
    byModel.map((r) => [r.group, r.costNanos]),
    [
      ['b/m', 2_500n],
      ['a/m', 1_700n],
    ],
  );
  const totals = await s.usage.totals('acct_1', '2026-03-01', '2026-03-02');
  assert.equal(totals.requests, 3);
  assert.equal(totals.errors, 1);
  assert.equal(totals.costNanos, 3_500n);
  assert.equal(totals.latencyCount, 2);
  const none = await s.usage.totals(null, '2025-01-01', '2025-01-02');
  assert.equal(none.requests, 0);
  assert.equal(none.costNanos, 0n);
  out.totals = totals;
  out.allTotals = await s.usage.totals(null, '2026-03-01', '2026-03-02');
  for (const by of ['day', 'model', 'key'] as const) out[`records:${by}`] = await s.usage.byAccount('acct_1', by);
  assert.deepEqual(
    (out['records:key'] as Array<{ group: string }>).map((r) => r.group),
    ['k2', 'k1'],
  );
  out.ranged = await s.usage.byAccount('acct_1', 'day', { since: DAY2 });
  return out;
});

contractCase('usage: keyset pages of groups (by day; by cost, ties by group byte-wise) walk every group once', async (s) => {
  await seed(s);
  // Apps whose costs tie (and whose titles order differently by locale) and differ.
  const apps: Array<[string, bigint]> = [
    ['b', 300n],
    ['B', 300n],
    ['_x', 300n],
    ['a', 900n],
    ['-', 0n],
    ['z', 50n],
  ];
  await s.ledger.settle(
    [],
    apps.map(([title, cost], i) => record(`app${i}`, { xTitle: title, costNanos: cost, createdAt: i % 2 === 0 ? DAY1 : DAY2 })),
  );
  const walk = async (accountId: string | null, group: 'day' | 'app' | 'model', size: number): Promise<Array<string | null>> => {
    const seen: Array<string | null> = [];
    let after: Parameters<Stores['usage']['aggregate']>[4] extends infer P ? (P extends { after: infer A } ? A : never) : never = null;
    for (;;) {
      const page = await s.usage.aggregate(accountId, group, '2026-03-01', '2026-03-02', { after, limit: size });
      seen.push(...page.map((r) => r.group));
      if (page.length < size) return seen;
      const last = page[page.length - 1]!;
      after = group === 'day' ? [last.group ?? ''] : [last.costNanos.toString(), last.group ?? ''];
    }
  };
  const whole = (await s.usage.aggregate('acct_1', 'app', '2026-03-01', '2026-03-02')).map((r) => r.group);
  const paged = await walk('acct_1', 'app', 2);
  assert.deepEqual(paged, whole);
  // No title (the seed's 2,500), App (1,000), a (900), then three at 300 byte-wise, z, '-'.
  assert.deepEqual(paged, [null, 'App', 'a', 'B', '_x', 'b', 'z', '-'], 'cost first, then the group byte-wise');
  assert.deepEqual(
    await walk(null, 'app', 3),
    (await s.usage.aggregate(null, 'app', '2026-03-01', '2026-03-02')).map((r) => r.group),
  );
  assert.deepEqual(await walk('acct_1', 'day', 1), ['2026-03-01', '2026-03-02']);
  return { paged, all: await walk(null, 'model', 1) };
});

contractCase('audit log: record, newest first, filter by action and target, pages', async (s) => {
  const actor = { keyHash: 'kh', label: 'sk-..', accountId: 'acct_admin' };
  await s.audit.record(actor, 'account.create', 'acct_1', { name: 'one', credits: '5' }, DAY1);
  await s.audit.record(actor, 'key.disable', 'k1', null, DAY2);
  await s.audit.record(actor, 'account.update', 'acct_1', { tier: 'pro' }, DAY2);
  const all = await s.audit.list({}, null, 10);
  assert.deepEqual(
    all.map((e) => e.action),
    ['account.update', 'key.disable', 'account.create'],
  );
  assert.deepEqual(all[2]!.details, { name: 'one', credits: '5' });
  assert.deepEqual(
    (await s.audit.list({ target: 'acct_1' }, null, 10)).map((e) => e.action),
    ['account.update', 'account.create'],
  );
  assert.deepEqual(
    (await s.audit.list({ action: 'key.disable' }, null, 10)).map((e) => e.target),
    ['k1'],
  );
  assert.deepEqual(
    (await s.audit.list({}, all[0]!.id, 1)).map((e) => e.action),
    ['key.disable'],
  );
  return all;
});

contractCase("sessions: create, look up, revoke one, revoke a key's, ended by disabling or deleting the key", async (s) => {
  await seed(s);
  const later = '2026-03-09T00:00:00.000Z';
  await s.sessions.insert('sid1', 'k1', DAY1, later, DAY1, 20);
  await s.sessions.insert('sid2', 'k1', DAY1, later, DAY1, 20);
  await s.sessions.insert('sid3', 'k2', DAY1, later, DAY1, 20);
  await s.sessions.insert('sid4', 'k3', DAY1, later, DAY1, 20);
  await s.sessions.insert('old', 'k3', DAY1, DAY1, DAY1, 20);
  assert.deepEqual(await s.sessions.find('sid1'), { keyHash: 'k1', expiresAt: later, revokedAt: null, memberId: null });
  await s.sessions.revoke('sid1', DAY2);
  assert.equal((await s.sessions.find('sid1'))?.revokedAt, DAY2);
  await s.sessions.revokeKey('k1', DAY2);
  assert.equal((await s.sessions.find('sid2'))?.revokedAt, DAY2);
  // Purged when a later session is made.
  await s.sessions.insert('sid5', 'k3', DAY2, later, DAY2, 20);
  assert.equal(await s.sessions.find('old'), undefined);
  await s.accounts.setKeyActive('k2', false, 'operator');
  assert.notEqual((await s.sessions.find('sid3'))?.revokedAt, null);
  await s.accounts.deleteKey('k3');
  assert.notEqual((await s.sessions.find('sid4'))?.revokedAt, null);
  return { sid1: await s.sessions.find('sid1'), sid2: await s.sessions.find('sid2') };
});

contractCase(
  'sessions: a key keeps its newest sessions only; a sign-in purges a bounded batch of expired ones through the expiry index',
  async (s) => {
    await seed(s);
    const later = '2026-03-09T00:00:00.000Z';
    const at = (i: number) => new Date(Date.parse(DAY1) + i).toISOString();
    for (let i = 0; i < 8; i++) await s.sessions.insert(`s${i}`, 'k1', at(i), later, DAY1, 5);
    const live = [];
    for (let i = 0; i < 8; i++) live.push((await s.sessions.find(`s${i}`)) !== undefined);
    assert.deepEqual(live, [false, false, false, true, true, true, true, true], 'the five newest are kept');
    // Another key's sessions are not counted against this one.
    await s.sessions.insert('other', 'k2', at(9), later, DAY1, 5);
    assert.notEqual(await s.sessions.find('s3'), undefined);
    // 150 expired sessions of other keys: a sign-in removes at most 100 of them.
    for (let i = 0; i < 150; i++) await s.sessions.insert(`x${i}`, `kx${i}`, DAY1, DAY1, DAY1, 5);
    await s.sessions.insert('new', 'k2', DAY2, later, DAY2, 5);
    let left = 0;
    for (let i = 0; i < 150; i++) if ((await s.sessions.find(`x${i}`)) !== undefined) left++;
    assert.equal(left, 50);
    await s.sessions.insert('new2', 'k2', DAY2, later, DAY2, 5);
    for (let i = 0; i < 150; i++) assert.equal(await s.sessions.find(`x${i}`), undefined);
    return live;
  },
);

contractCase('reload status: none, then the last written', async (s) => {
  assert.equal(await s.reloadStatus.read(), null);
  const status = { pid: 42, attempt: 2, generation: 3, ok: false, error: 'bad tier', at: DAY1 };
  assert.equal(await s.reloadStatus.write({ ...status, attempt: 1 }), true);
  assert.equal(await s.reloadStatus.write(status), true);
  assert.deepEqual(await s.reloadStatus.read(), status);
  return s.reloadStatus.read();
});

contractCase(
  'key usage per day: the settled cost and requests of a key on the days asked (the usage a resetting limit caps), CSV keyset pages to the end',
  async (s) => {
    await seed(s);
    const days = ['2026-02-28', '2026-03-01', '2026-03-02'];
    const k1 = await s.keyUsage.perDay('acct_1', 'k1', days);
    // g3 (an error, no cost) still counts as a request on its day.
    assert.deepEqual(k1, [
      { day: '2026-03-01', costNanos: 1_000n, requests: 1 },
      { day: '2026-03-02', costNanos: 0n, requests: 1 },
    ]);
    const k2 = await s.keyUsage.perDay('acct_1', 'k2', days);
    assert.deepEqual(k2, [{ day: '2026-03-02', costNanos: 2_500n, requests: 1 }]);
    assert.equal(await s.keyUsage.costOnDays('acct_1', 'k2', days), 2_500n);
    assert.equal(await s.keyUsage.costOnDays('acct_1', 'k2', ['2026-03-01']), 0n);
    assert.equal(await s.keyUsage.costOnDays('acct_2', 'k1', days), 0n, 'another account: nothing');
    assert.deepEqual(await s.keyUsage.perDay('acct_1', 'k1', []), []);
    // The CSV export's walk: keyset pages of one row until the range is done.
    const walked: string[] = [];
    let after: { createdAt: string; id: string } | null = null;
    for (;;) {
      const page = await s.activity.list({ accountId: 'acct_1' }, 1, after);
      if (page.length === 0) break;
      walked.push(page[0]!.id);
      after = { createdAt: page[0]!.created_at, id: page[0]!.id };
    }
    assert.deepEqual(walked, ['g3', 'g2', 'g1']);
    return { k1, k2, walked };
  },
);

contractCase('key limit reset: created with a period, changed, removed; kept by the key record', async (s) => {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'user', tier: 'free', defaultModel: null, now: DAY1 });
  const made = await s.accounts.createKey({
    hash: 'k1',
    accountId: 'acct_1',
    name: 'k',
    label: 'l',
    limitNanos: 5_000n,
    limitReset: 'daily',
    isManagement: false,
    expiresAt: null,
    now: DAY1,
  });
  assert.equal(made.limitReset, 'daily');
  const weekly = await s.accounts.updateKey('k1', { limitReset: 'weekly' }, DAY2);
  assert.equal(weekly?.limitReset, 'weekly');
  assert.equal(weekly?.limitNanos, 5_000n);
  const none = await s.accounts.updateKey('k1', { limitNanos: null, limitReset: null }, DAY2);
  assert.deepEqual([none?.limitNanos, none?.limitReset], [null, null]);
  const plain = await s.accounts.createKey({
    hash: 'k2',
    accountId: 'acct_1',
    name: 'k',
    label: 'l2',
    limitNanos: null,
    isManagement: false,
    expiresAt: null,
    now: DAY1,
  });
  assert.equal(plain.limitReset, null);
  return { made, weekly, none, plain };
});
