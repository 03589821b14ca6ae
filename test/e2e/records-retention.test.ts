import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allPages, call } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';
import type { AccountRecord } from '../../src/store/account-records.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { RecordsRetention } from '../../src/server/records-retention.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { pruneStepPostgres } from '../../src/store/postgres/postgres-record-pruner.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// Retention of generation records: records.retention_days for every account, a tier's own
// (tiers.<id>.retention_days), an account's own (admin API retention_days), pruned by
// POST /admin/generations/prune (the periodic job's pass), in steps; the ledger, balances
// and daily rollups stay whole.

const DAY = 86_400_000;
const NOW = Date.now();
const AGES = [1, 10, 40, 100, 500]; // days

function record(id: string, accountId: string, keyHash: string, ageDays: number, n: number): SettlementRecord {
  return {
    id,
    accountId,
    keyHash,
    model: 'switchyard/sim-pro',
    provider: 'sim',
    upstreamModel: 'sim-pro',
    upstreamId: `up-${id}`,
    dialect: 'chat',
    streamed: false,
    cancelled: false,
    status: 'success',
    errorCode: null,
    finishReason: 'stop',
    nativeFinishReason: 'stop',
    tokensPrompt: 5,
    tokensCompletion: 7,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costNanos: 1_000n + BigInt(n),
    costBreakdown: null,
    latencyMs: 12,
    firstTokenMs: 3,
    attempts: [],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt: new Date(NOW - ageDays * DAY - n * 1000).toISOString(),
    holdRowWritten: false,
  };
}

describe('records retention', () => {
  let gw: TestGateway;
  let admin: string;
  let mgmt: string;
  const accounts: Record<string, { id: string; keyHash: string }> = {};

  before(async () => {
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}records:\n  retention_days: 30\ntiers:\n  enterprise:\n    retention_days: 365\n`,
      credits: '10',
    });
    admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    for (const [name, tier] of [
      ['global', 'tier2'],
      ['enterprise', 'enterprise'],
      ['short', 'tier2'],
      ['long', 'enterprise'],
    ] as const) {
      const a = await gw.services.accountService.createAccount({ name, tier, creditsUsd: '5' });
      const k = await gw.services.accountService.createKey({ accountId: a.id, name: 'k' });
      accounts[name] = { id: a.id, keyHash: k.record.hash };
    }
    const batch: SettlementRecord[] = [];
    for (const [name, a] of Object.entries(accounts)) {
      AGES.forEach((age, i) => batch.push(record(`gen-${name}-${age}`, a.id, a.keyHash, age, i)));
    }
    // Enough old records of one account for a pass of several steps (at most 1,000 rows each).
    for (let i = 0; i < 1500; i++) batch.push(record(`gen-bulk-${i}`, accounts.global!.id, accounts.global!.keyHash, 60, i));
    await gw.services.stores.ledger.settle([], batch);
  });
  after(() => gw.close());

  const api = `/api/v1/admin`;
  const ids = async (accountId: string) =>
    (await allPages(`${gw.origin}${api}/generations?account=${accountId}&limit=200`, admin)).map((g) => g.id as string);
  const rollups = () =>
    gw.db
      .prepare(
        `SELECT (SELECT sum(requests) FROM usage_daily) AS daily, (SELECT sum(cost_nanos) FROM usage_daily) AS cost,
    (SELECT sum(requests) FROM usage_daily_global) AS global, (SELECT sum(requests) FROM usage_daily_keys) AS keys,
    (SELECT sum(amount_nanos) FROM ledger) AS ledger, (SELECT sum(balance_nanos) FROM accounts) AS balances`,
      )
      .get();

  test("an account's retention_days is set, shown and checked through the admin API", async () => {
    const set = await call('PATCH', `${gw.origin}${api}/accounts/${accounts.short!.id}`, admin, { retention_days: 7 });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    assert.equal(set.json.data.retention_days, 7);
    assert.equal((await call('PATCH', `${gw.origin}${api}/accounts/${accounts.long!.id}`, admin, { retention_days: 1000 })).status, 200);
    assert.equal((await call('GET', `${gw.origin}${api}/accounts/${accounts.global!.id}`, admin)).json.data.retention_days, null);
    for (const bad of [0, -3, 1.5, 'x', 36_501]) {
      const r = await call('PATCH', `${gw.origin}${api}/accounts/${accounts.short!.id}`, admin, { retention_days: bad });
      assert.equal(r.status, 400, `${bad}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.error.code, 'invalid_parameter');
    }
    // null clears it (the tier's, else the global, then applies); set again for the pass below.
    assert.equal(
      (await call('PATCH', `${gw.origin}${api}/accounts/${accounts.short!.id}`, admin, { retention_days: null })).json.data.retention_days,
      null,
    );
    assert.equal(
      (await call('PATCH', `${gw.origin}${api}/accounts/${accounts.short!.id}`, admin, { retention_days: 7 })).json.data.retention_days,
      7,
    );
  });

  test('the pruning is for admin keys only', async () => {
    assert.equal((await call('POST', `${gw.origin}${api}/generations/prune`, null)).status, 401);
    assert.equal((await call('POST', `${gw.origin}${api}/generations/prune`, mgmt)).status, 403);
    assert.equal((await call('POST', `${gw.origin}${api}/generations/prune`, gw.key)).status, 403);
  });

  test("a pass deletes the records past each account's retention, in steps; ledger, balances and rollups stay", async () => {
    const before = rollups();
    const r = await call('POST', `${gw.origin}${api}/generations/prune`, admin);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    // global (30 days): 40, 100, 500 and the 1,500 of 60 days; enterprise (365): 500; short (7): 10, 40, 100, 500; long (1,000): none.
    assert.equal(r.json.data.deleted, 3 + 1500 + 1 + 4);
    assert.ok(r.json.data.steps >= 2, `several steps: ${JSON.stringify(r.json.data)}`);
    assert.deepEqual((await ids(accounts.global!.id)).sort(), ['gen-global-1', 'gen-global-10']);
    assert.deepEqual((await ids(accounts.enterprise!.id)).sort(), [
      'gen-enterprise-1',
      'gen-enterprise-10',
      'gen-enterprise-100',
      'gen-enterprise-40',
    ]);
    assert.deepEqual(await ids(accounts.short!.id), ['gen-short-1']);
    assert.equal((await ids(accounts.long!.id)).length, AGES.length);
    assert.deepEqual(rollups(), before, 'usage rollups, ledger and balances untouched');
    // A pruned record is gone from the lookups too; a kept one is whole.
    assert.equal((await call('GET', `${gw.origin}${api}/generations/gen-global-40`, admin)).status, 404);
    const kept = await call('GET', `${gw.origin}${api}/generations/gen-global-10`, admin);
    assert.equal(kept.json.data.upstream_id, 'up-gen-global-10');
    // A second pass finds nothing more; the action is in the audit log.
    assert.equal((await call('POST', `${gw.origin}${api}/generations/prune`, admin)).json.data.deleted, 0);
    const audit = await call('GET', `${gw.origin}${api}/audit?limit=5`, admin);
    assert.ok(audit.json.data.some((e: { action: string }) => e.action === 'generations.prune'));
  });

  test("the CLI sets and clears an account's retention_days", async () => {
    const id = accounts.enterprise!.id;
    const set = runCli(gw.dir, 'accounts', 'update', '--account', id, '--retention-days', '12', '--json');
    assert.equal(set.code, 0, set.err);
    assert.equal(JSON.parse(set.out).retention_days, 12);
    assert.equal((await call('GET', `${gw.origin}${api}/accounts/${id}`, admin)).json.data.retention_days, 12);
    assert.equal(
      JSON.parse(runCli(gw.dir, 'accounts', 'update', '--account', id, '--retention-days', 'none', '--json').out).retention_days,
      null,
    );
    for (const bad of ['0', '36501', 'soon']) {
      const r = runCli(gw.dir, 'accounts', 'update', '--account', id, '--retention-days', bad);
      assert.notEqual(r.code, 0, bad);
      assert.match(r.err, /retention-days/, bad);
    }
  });
});

describe('records retention: config', () => {
  test("records.retention_days and a tier's retention_days are checked at load", async () => {
    const { parseConfig } = await import('../../src/config/load-config.ts');
    assert.equal(parseConfig({ records: { retention_days: 90 } }, {}).records.retentionDays, 90);
    assert.equal(parseConfig({}, {}).records.retentionDays, null);
    assert.throws(() => parseConfig({ records: { retention_days: 0 } }, {}), /records\.retention_days/);
    assert.throws(() => parseConfig({ records: { retention: 3 } }, {}), /records\.retention/);
    assert.equal(parseConfig({ tiers: { free: { retention_days: 14 } } }, {}).tiers.find((t) => t.id === 'free')!.retentionDays, 14);
    assert.throws(() => parseConfig({ tiers: { free: { retention_days: 'x' } } }, {}), /tiers\.free\.retention_days/);
  });
});

describe('records retention on Postgres', { skip: postgresUnavailable() ?? false }, () => {
  after(() => stopPostgres());

  test('batched deletes per account: the records past each retention go, the rollups stay', async () => {
    const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
    try {
      await migratePostgres(pool);
      const ledger = new PostgresLedger(pool);
      const batch: SettlementRecord[] = [];
      for (const [name, ages] of [
        ['a', [1, 40, 100]],
        ['b', [1, 40, 100]],
      ] as const) {
        ages.forEach((age, i) => batch.push({ ...record(`gen-pg-${name}-${age}`, `acct_${name}`, `hash_${name}`, age, i), costNanos: 0n }));
      }
      for (let i = 0; i < 300; i++) batch.push({ ...record(`gen-pg-bulk-${i}`, 'acct_a', 'hash_a', 50, i), costNanos: 0n });
      await ledger.settle([], batch);
      const rollups = async () => (await pool.query('SELECT sum(requests)::text AS n FROM usage_daily')).rows[0].n;
      const before = await rollups();
      const account = (id: string, retentionDays: number | null) => ({ id, tier: 'free', retentionDays }) as AccountRecord;
      const config = parseConfig({ records: { retention_days: 30 } }, {});
      const retention = new RecordsRetention({
        listAccounts: async () => [account('acct_a', null), account('acct_b', 60)],
        step: (cutoffs, start, limit) => pruneStepPostgres(pool, cutoffs, start, limit),
        config: () => config,
        now: () => NOW,
        log: () => {},
      });
      const r = await retention.runOnce();
      assert.equal(r.deleted, 2 + 300 + 1);
      assert.ok(r.steps >= 3, `steps of at most 100 rows first: ${r.steps}`);
      const left = (await pool.query('SELECT id FROM generations ORDER BY id')).rows.map((x) => x.id);
      assert.deepEqual(left, ['gen-pg-a-1', 'gen-pg-b-1', 'gen-pg-b-40']);
      assert.equal(await rollups(), before);
    } finally {
      await pool.end();
    }
  });
});
