import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';
import { startEventReceiver } from '../support/webhook-receiver.ts';

// A member's budget (`budget: {amount, reset}` on the member, through the management API and
// the admin API) enforced by the credit holds before the upstream call for every key of the
// member, beside the account's budget, alike on every engine: SQLite with the holds in
// process, SQLite with the holds in Redis, a fleet instance on Postgres and Redis. Every
// answer costs $0.00014; a member budget of $0.00042 pays exactly three, whichever of the
// member's keys spends it, while a key of no member is not bound by it. budget.threshold
// fires with the member scope once per window and threshold. Two fleet instances share one
// member budget: a hold in flight on one refuses the other's request.

const BUDGET = '0.00042';
const chat = { model: 'acme/mock-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
const hooksYaml = 'webhooks: { allow_private_addresses: true, retry_base_ms: 20 }\nalerts: { thresholds: [50, 80, 100] }\n';
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
  {
    name: 'SQLite, holds in Redis',
    skip: redisSkip,
    options: async () => ({ redis: { url: await redisUrl(), prefix: 'member-budget-sqlite' } }),
  },
  {
    name: 'Postgres and Redis (a fleet instance)',
    skip: fleetSkip,
    options: async () => ({ env: { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: await redisUrl() } }),
  },
];

const thresholdsOf = (events: Array<{ type: string; data: any }>, id: string) =>
  events
    .filter((e) => e.type === 'budget.threshold' && e.data.scope === 'member' && e.data.id === id)
    .map((e) => e.data.threshold)
    .sort((a, b) => a - b);

/** A hooked upstream's next request held until `release()`; `arrived` resolves once it is there. */
function holdNext(upstream: HookedUpstream): { arrived: Promise<void>; release: () => void } {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  upstream.onNextRequest = () => {
    arrive();
    return held;
  };
  return { arrived, release };
}

for (const engine of ENGINES) {
  describe(`a member budget over HTTP: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let upstream: HookedUpstream;
    let admin: string;
    let owner: string;
    let now = Date.UTC(2026, 0, 7, 12); // Wednesday 7 January 2026, 12:00 UTC
    before(async () => {
      upstream = await startHookedUpstream();
      const options = await engine.options();
      gw = await startTestGateway({
        yaml: emulatorConfig(upstream.baseUrl) + hooksYaml,
        credits: '20',
        now: () => now,
        ...options,
        env: { LOCAL_KEY: 'k', ...options.env },
      });
      admin = (await createAdminKey(gw)).key;
      owner = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'owner', management: true })).key;
    });
    after(async () => {
      await gw?.close();
      await upstream?.close();
    });

    const api = (path: string) => `${gw.origin}/api/v1${path}`;
    const addMember = async (email: string, budget?: unknown): Promise<string> => {
      const res = await call('POST', api('/members'), owner, { email, role: 'member', ...(budget === undefined ? {} : { budget }) });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      return res.json.data.id as string;
    };
    /** A key of the member: made with a session of theirs, so it belongs to them. */
    const memberKey = async (memberId: string, name: string): Promise<string> => {
      const session = (await gw.services.sessions.createForMember(memberId, 3_600_000)).token;
      const res = await call('POST', api('/keys'), session, { name });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      assert.equal(res.json.data.member_id, memberId);
      return res.json.key as string;
    };
    const complete = (key: string) => postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });

    test("the member's keys share the budget: the request that would exceed it is refused while a hold is in flight", async () => {
      const receiver = await startEventReceiver();
      try {
        assert.equal((await call('POST', api('/webhooks'), owner, { url: receiver.url, events: ['budget.threshold'] })).status, 201);
        const ann = await addMember('ann@example.com');
        const set = await call('PATCH', api(`/members/${ann}`), owner, { budget: { amount: BUDGET, reset: 'monthly' } });
        assert.equal(set.status, 200, JSON.stringify(set.json));
        assert.deepEqual(set.json.data.budget, { amount: 0.00042, amount_usd: '0.00042', reset: 'monthly' });
        const [a, b] = [await memberKey(ann, 'a'), await memberKey(ann, 'b')];
        const outsider = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'no member' })).key;
        const send = async (key: string) => {
          now += 10_000; // past the 5 s between two alert checks of a member
          const res = await complete(key);
          await gw.flush();
          return res;
        };
        assert.equal((await send(a)).status, 200);
        assert.equal((await send(b)).status, 200, 'another key of the member spends the same budget');
        // The third answer is held at the upstream: its hold takes what the budget has left.
        const hold = holdNext(upstream);
        const inFlight = complete(a);
        await hold.arrived;
        const refused = await complete(b);
        hold.release();
        assert.equal(refused.status, 402, refused.text);
        assert.equal(refused.json.error.code, 'insufficient_quota');
        assert.equal(refused.json.error.metadata.reason, 'member_budget');
        assert.ok(Number(refused.json.error.metadata.available) < Number(refused.json.error.metadata.required), refused.text);
        assert.match(refused.json.error.message, /member's budget/);
        assert.equal((await inFlight).status, 200, 'the held request is answered');
        await gw.flush();
        assert.equal((await send(b)).status, 402, 'the budget is spent');
        assert.equal((await send(outsider)).status, 200, "a key of no member is not bound by the member's budget");
        // 50, 80 and 100 % of the member's budget, each once, though refusals keep coming.
        await receiver.until((e) => thresholdsOf(e, ann).length === 3);
        for (let i = 0; i < 3; i++) assert.equal((await send(a)).status, 402);
        const alert = receiver.events.find((e) => e.data.scope === 'member' && e.data.threshold === 100)!;
        assert.deepEqual(alert.data, {
          scope: 'member',
          id: ann,
          account_id: gw.accountId,
          threshold: 100,
          amount: '420000',
          spent: '420000',
          window_start: '2026-01-01T00:00:00.000Z',
        });

        // The admin API changes it too: null clears it.
        const cleared = await call('PATCH', api(`/admin/accounts/${gw.accountId}/members/${ann}`), admin, { budget: null });
        assert.equal(cleared.status, 200, JSON.stringify(cleared.json));
        assert.equal(cleared.json.data.budget, null);
        assert.equal((await send(a)).status, 200, 'without a budget only the balance limits');
        assert.deepEqual(thresholdsOf(receiver.events, ann), [50, 80, 100], 'each threshold fired once');
      } finally {
        await receiver.close();
      }
    });

    test('a daily member budget is whole again at 00:00 UTC; the admin API adds a member with one', async () => {
      const added = await call('POST', api(`/admin/accounts/${gw.accountId}/members`), admin, {
        email: 'dan@example.com',
        budget: { amount: BUDGET, reset: 'daily' },
      });
      assert.equal(added.status, 201, JSON.stringify(added.json));
      assert.deepEqual(added.json.data.budget, { amount: 0.00042, amount_usd: '0.00042', reset: 'daily' });
      const key = await memberKey(added.json.data.id, 'daily');
      now = Date.UTC(2026, 0, 9, 12); // Friday: nothing spent yet today
      let ok = 0;
      while ((await complete(key)).status === 200) {
        ok++;
        await gw.flush();
      }
      assert.equal(ok, 3, 'three answers fit in the daily budget');
      now = Date.UTC(2026, 0, 10) - 1;
      assert.equal((await complete(key)).status, 402, 'the last millisecond of Friday');
      now = Date.UTC(2026, 0, 10);
      assert.equal((await complete(key)).status, 200, 'Saturday: the budget is whole again');
    });

    test('bad member budgets are refused with 400 naming the field', async () => {
      const id = await addMember('eve@example.com');
      const cases: Array<[unknown, RegExp]> = [
        [{ amount: '-1' }, /budget/],
        [{ amount: '1', reset: 'hourly' }, /budget/],
        [{ reset: 'daily' }, /budget/],
        [{ amount: '1.0000000001' }, /budget/],
        [{ amount: '1', extra: 1 }, /budget/],
        ['10', /budget/],
      ];
      for (const [budget, field] of cases) {
        const res = await call('PATCH', api(`/members/${id}`), owner, { budget });
        assert.equal(res.status, 400, JSON.stringify(budget));
        assert.match(`${res.json.error.param ?? ''} ${res.json.error.message}`, field, JSON.stringify(res.json));
      }
      // Strictly: a budget the schema lets through but the rules refuse names its field.
      const over = await call('PATCH', api(`/members/${id}`), owner, { budget: { amount: '1000000001' } });
      assert.equal(over.status, 400);
      assert.equal(over.json.error.param, 'budget.amount', JSON.stringify(over.json));
    });
  });
}

describe('a member budget through the CLI', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({});
  });
  after(async () => {
    await gw?.close();
  });

  test('switchyard members add/update --budget / --budget-reset sets, changes and clears it', async () => {
    const admin = (await createAdminKey(gw)).key;
    const added = runCli(
      gw.dir,
      'members',
      'add',
      '--account',
      gw.accountId,
      '--email',
      'cli@example.com',
      '--budget',
      '5',
      '--budget-reset',
      'weekly',
      '--json',
    );
    assert.equal(added.code, 0, added.err);
    const member = JSON.parse(added.out) as { id: string; budget: unknown };
    assert.deepEqual(member.budget, { amount: 5, amount_usd: '5', reset: 'weekly' });
    const reset = runCli(gw.dir, 'members', 'update', member.id, '--budget-reset', 'daily', '--json');
    assert.equal(reset.code, 0, reset.err);
    assert.deepEqual(JSON.parse(reset.out).budget, { amount: 5, amount_usd: '5', reset: 'daily' });
    const read = await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/members/${member.id}`, admin);
    assert.deepEqual(read.json.data.budget, { amount: 5, amount_usd: '5', reset: 'daily' });
    for (const [flag, value] of [
      ['--budget', '-3'],
      ['--budget-reset', 'hourly'],
    ]) {
      const r = runCli(gw.dir, 'members', 'update', member.id, flag!, value!);
      assert.notEqual(r.code, 0, `${flag} ${value}`);
      assert.ok(r.err.includes(flag!), r.err);
    }
    assert.equal(JSON.parse(runCli(gw.dir, 'members', 'update', member.id, '--budget', 'none', '--json').out).budget, null);
  });
});

describe('a member budget across a fleet: two instances on one Postgres and Redis', { skip: fleetSkip }, () => {
  test("a hold in flight on one instance refuses the other's request that would exceed the member's budget; one alert per threshold", async () => {
    const upstream = await startHookedUpstream();
    const env = { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: await redisUrl() };
    const now = Date.UTC(2026, 0, 7, 12);
    const yaml = emulatorConfig(upstream.baseUrl) + hooksYaml;
    const a = await startTestGateway({ yaml, credits: '20', now: () => now, env });
    const b = await startTestGateway({ yaml, credits: '20', now: () => now, env });
    const receiver = await startEventReceiver();
    try {
      const owner = (await a.services.accountService.createKey({ accountId: a.accountId, name: 'owner', management: true })).key;
      assert.equal(
        (await call('POST', `${a.origin}/api/v1/webhooks`, owner, { url: receiver.url, events: ['budget.threshold', 'key.created'] }))
          .status,
        201,
      );
      const added = await call('POST', `${a.origin}/api/v1/members`, owner, {
        email: 'fleet@example.com',
        budget: { amount: '0.00028', reset: 'daily' },
      });
      assert.equal(added.status, 201, JSON.stringify(added.json));
      const memberId = added.json.data.id as string;
      const session = (await a.services.sessions.createForMember(memberId, 3_600_000)).token;
      const key = (await call('POST', `${a.origin}/api/v1/keys`, session, { name: 'k' })).json.key as string;
      const complete = (gw: TestGateway, body: unknown = chat) =>
        postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` });
      assert.equal((await complete(b)).status, 200, 'half the budget, spent through b');
      await b.flush();
      const hold = holdNext(upstream);
      const inFlight = complete(a);
      await hold.arrived;
      const refused = await complete(b);
      hold.release();
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.json.error.metadata.reason, 'member_budget');
      assert.equal((await inFlight).status, 200);
      await a.flush();
      // Both instances see 100 % at once (a refusal forces the check): one event per threshold.
      const [ra, rb] = await Promise.all([a, b].map((gw) => complete(gw)));
      assert.deepEqual([ra!.status, rb!.status], [402, 402]);
      await receiver.until((e) => thresholdsOf(e, memberId).includes(100));
      // A marker event after them: every budget.threshold queued before it has been sent by then.
      assert.equal((await postJson(`${a.origin}/api/v1/keys`, { name: 'marker' }, { authorization: `Bearer ${owner}` })).status, 201);
      await receiver.until((e) => e.some((x) => x.type === 'key.created' && x.data.key.name === 'marker'));
      assert.deepEqual(thresholdsOf(receiver.events, memberId), [50, 80, 100]);
    } finally {
      await receiver.close();
      await a.close();
      await b.close();
      await upstream.close();
    }
  });
});
