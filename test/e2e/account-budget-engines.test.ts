import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';

// An account's budget (PATCH /api/v1/admin/accounts/{id} {budget: {amount, reset}}) enforced
// by the credit holds before the upstream call, alike on every engine: SQLite with the holds
// in process, SQLite with the holds in Redis, a fleet instance on Postgres and Redis. The
// upstream charges every answer $0.00014; a budget of $0.00042 pays exactly three, whichever
// of the account's keys spends it. The gateway's clock is injected and moved across midnight.
// Two fleet instances share one budget: a hold in flight on one refuses the other.

const BUDGET = '0.00042';
const chat = { model: 'acme/mock-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
const redisSkip = redisUnavailable() ?? false;
const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;

let redis: Promise<RedisServer> | undefined;
async function redisUrl(): Promise<string> {
  redis ??= startRedis();
  return (await redis).url;
}
after(async () => {
  await (await redis)?.stop();
  await stopPostgres();
});

const ENGINES: Array<{ name: string; skip: string | false; options(): Promise<Partial<TestGatewayOptions>> }> = [
  { name: 'SQLite, holds in process', skip: false, options: async () => ({}) },
  { name: 'SQLite, holds in Redis', skip: redisSkip, options: async () => ({ redis: { url: await redisUrl(), prefix: 'budget-sqlite' } }) },
  {
    name: 'Postgres and Redis (a fleet instance)',
    skip: fleetSkip,
    options: async () => ({ env: { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: await redisUrl() } }),
  },
];

for (const engine of ENGINES) {
  describe(`an account budget over HTTP: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let upstream: HookedUpstream;
    let admin: string;
    let now = Date.UTC(2026, 0, 7, 12); // Wednesday 7 January 2026, 12:00 UTC
    before(async () => {
      upstream = await startHookedUpstream();
      const options = await engine.options();
      gw = await startTestGateway({
        yaml: emulatorConfig(upstream.baseUrl),
        credits: '20',
        now: () => now,
        ...options,
        env: { LOCAL_KEY: 'k', ...options.env },
      });
      admin = (await createAdminKey(gw)).key;
    });
    after(async () => {
      await gw?.close();
      await upstream?.close();
    });

    const apiKey = async (name: string): Promise<string> =>
      (await gw.services.accountService.createKey({ accountId: gw.accountId, name })).key;
    const complete = (key: string) => postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    const setBudget = (budget: unknown) => call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { budget });

    test('the request that would exceed the budget is refused while a hold is in flight; null clears the budget', async () => {
      const set = await setBudget({ amount: BUDGET, reset: 'monthly' });
      assert.equal(set.status, 200, JSON.stringify(set.json));
      assert.deepEqual(set.json.data.budget, { amount: 0.00042, amount_usd: '0.00042', reset: 'monthly', alert_thresholds: null });
      const [a, b] = [await apiKey('a'), await apiKey('b')];
      assert.equal((await complete(a)).status, 200);
      assert.equal((await complete(b)).status, 200, 'another key of the account spends the same budget');
      // The third answer is held at the upstream: its hold takes what the budget has left.
      let arrived!: () => void;
      const upstreamHasIt = new Promise<void>((resolve) => (arrived = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      upstream.onNextRequest = () => {
        arrived();
        return held;
      };
      const inFlight = complete(a);
      await upstreamHasIt;
      const refused = await complete(b);
      release();
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.json.error.code, 'insufficient_quota');
      assert.equal(refused.json.error.metadata.reason, 'budget');
      assert.ok(Number(refused.json.error.metadata.available) < Number(refused.json.error.metadata.required), refused.text);
      assert.match(refused.json.error.message, /budget/);
      assert.equal((await inFlight).status, 200, 'the held request is answered');
      assert.equal((await complete(b)).status, 402, 'the budget is spent');
      const cleared = await setBudget(null);
      assert.equal(cleared.status, 200);
      assert.equal(cleared.json.data.budget, null);
      assert.equal((await complete(b)).status, 200, 'without a budget only the balance limits');
    });

    test('a daily budget is whole again at 00:00 UTC', async () => {
      assert.equal((await setBudget({ amount: BUDGET, reset: 'daily' })).status, 200);
      const key = await apiKey('daily');
      now = Date.UTC(2026, 0, 9, 12); // Friday: nothing spent yet today
      let ok = 0;
      while ((await complete(key)).status === 200) ok++;
      assert.equal(ok, 3, 'three answers fit in the daily budget');
      now = Date.UTC(2026, 0, 10) - 1;
      assert.equal((await complete(key)).status, 402, 'the last millisecond of Friday');
      now = Date.UTC(2026, 0, 10);
      assert.equal((await complete(key)).status, 200, 'Saturday: the budget is whole again');
    });

    test('bad budgets are refused with 400 naming the field', async () => {
      for (const [budget, param] of [
        [{ amount: '-1' }, 'budget.amount'],
        [{ amount: '1', reset: 'hourly' }, 'budget.reset'],
        [{ reset: 'daily' }, 'budget'],
        [{ amount: '1', alert_thresholds: [0] }, 'budget.alert_thresholds'],
      ] as const) {
        const res = await setBudget(budget);
        assert.equal(res.status, 400, JSON.stringify(budget));
        assert.match(
          String(res.json.error.param ?? res.json.error.message),
          new RegExp(param.replace('.', '\\.')),
          JSON.stringify(res.json),
        );
      }
    });
  });
}

describe('an account budget through the CLI', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({});
  });
  after(async () => {
    await gw?.close();
  });

  test('switchyard accounts update --budget / --budget-reset / --budget-alerts sets, changes and clears it', async () => {
    const admin = (await createAdminKey(gw)).key;
    const id = gw.accountId;
    const set = runCli(gw.dir, 'accounts', 'update', '--account', id, '--budget', '100', '--budget-reset', 'monthly', '--json');
    assert.equal(set.code, 0, set.err);
    assert.deepEqual(JSON.parse(set.out).budget, { amount: 100, amount_usd: '100', reset: 'monthly', alert_thresholds: null });
    const alerts = runCli(gw.dir, 'accounts', 'update', '--account', id, '--budget-alerts', '90,75', '--json');
    assert.equal(alerts.code, 0, alerts.err);
    assert.deepEqual(JSON.parse(alerts.out).budget, { amount: 100, amount_usd: '100', reset: 'monthly', alert_thresholds: [75, 90] });
    assert.deepEqual((await call('GET', `${gw.origin}/api/v1/admin/accounts/${id}`, admin)).json.data.budget.alert_thresholds, [75, 90]);
    for (const [flag, value] of [
      ['--budget', '-3'],
      ['--budget-reset', 'hourly'],
      ['--budget-alerts', '0'],
    ]) {
      const r = runCli(gw.dir, 'accounts', 'update', '--account', id, flag!, value!);
      assert.notEqual(r.code, 0, `${flag} ${value}`);
      assert.ok(r.err.includes(flag!), r.err);
    }
    assert.equal(JSON.parse(runCli(gw.dir, 'accounts', 'update', '--account', id, '--budget', 'none', '--json').out).budget, null);
  });
});

describe('an account budget across a fleet: two instances on one Postgres and Redis', { skip: fleetSkip }, () => {
  test("a hold in flight on one instance refuses the other's request that would exceed the budget", async () => {
    const upstream = await startHookedUpstream();
    const env = { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: await redisUrl() };
    const now = Date.UTC(2026, 0, 7, 12);
    const a = await startTestGateway({ yaml: emulatorConfig(upstream.baseUrl), credits: '20', now: () => now, env });
    const b = await startTestGateway({ yaml: emulatorConfig(upstream.baseUrl), credits: '20', now: () => now, env });
    try {
      const admin = (await createAdminKey(a)).key;
      assert.equal(
        (await call('PATCH', `${a.origin}/api/v1/admin/accounts/${a.accountId}`, admin, { budget: { amount: '0.00028', reset: 'daily' } }))
          .status,
        200,
      );
      const key = (await a.services.accountService.createKey({ accountId: a.accountId, name: 'k' })).key;
      const complete = (gw: TestGateway) => postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
      assert.equal((await complete(b)).status, 200, 'half the budget, spent through b');
      let arrived!: () => void;
      const upstreamHasIt = new Promise<void>((resolve) => (arrived = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      upstream.onNextRequest = () => {
        arrived();
        return held;
      };
      const inFlight = complete(a);
      await upstreamHasIt;
      const refused = await complete(b);
      release();
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.json.error.metadata.reason, 'budget');
      assert.equal((await inFlight).status, 200);
    } finally {
      await a.close();
      await b.close();
      await upstream.close();
    }
  });
});
