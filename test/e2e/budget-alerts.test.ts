import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startEventReceiver } from '../support/webhook-receiver.ts';

// budget.threshold through real gateways and a real receiver on loopback: an account's budget
// and a key's limit each fire once per window and threshold (default 50/80/100 %, or the
// budget's own), never again when refused, and two fleet instances on one Postgres and Redis
// that both see a threshold crossed send one event. Every answer costs $0.00014. The clock is
// injected and moved past the checks' 5 s spacing between requests.

const chat = { model: 'acme/mock-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };
const hooksYaml = 'webhooks: { allow_private_addresses: true, retry_base_ms: 20 }\nalerts: { thresholds: [50, 80, 100] }\n';
const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;
let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

const thresholdsOf = (events: Array<{ type: string; data: any }>, scope: string) =>
  events
    .filter((e) => e.type === 'budget.threshold' && e.data.scope === scope)
    .map((e) => e.data.threshold)
    .sort((a, b) => a - b);

const ENGINES = [
  { name: 'SQLite', skip: false as string | false, env: async (): Promise<Record<string, string>> => ({}) },
  {
    name: 'Postgres and Redis',
    skip: fleetSkip,
    env: async (): Promise<Record<string, string>> => {
      redis ??= await startRedis();
      return { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    },
  },
];

for (const engine of ENGINES)
  describe(`budget.threshold alerts: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let upstream: HookedUpstream;
    let now = Date.UTC(2026, 2, 10, 12);
    before(async () => {
      upstream = await startHookedUpstream();
      gw = await startTestGateway({
        yaml: emulatorConfig(upstream.baseUrl) + hooksYaml,
        credits: '20',
        now: () => now,
        env: { LOCAL_KEY: 'k', ...(await engine.env()) },
      });
    });
    after(async () => {
      await gw?.close();
      await upstream?.close();
    });

    test("an account budget and a key's limit fire each threshold once, and again in the next window", async () => {
      const receiver = await startEventReceiver();
      try {
        const admin = (await createAdminKey(gw)).key;
        const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
        assert.equal(
          (await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['budget.threshold'] })).status,
          201,
        );
        const set = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, {
          budget: { amount: '0.00042', reset: 'daily', alert_thresholds: [50, 100] },
        });
        assert.equal(set.status, 200, JSON.stringify(set.json));
        const capped = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'capped', limitUsd: '0.00028' });
        const other = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'other' })).key;
        const send = async (key: string) => {
          now += 10_000; // past the 5 s between two checks of a key or an account
          const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
          await gw.flush();
          return res.status;
        };
        assert.equal(await send(capped.key), 200); // key 50 %, account 33 %
        assert.equal(await send(capped.key), 200); // key 100 %, account 67 %
        assert.equal(await send(capped.key), 402); // key refused: its check sees both answers
        assert.equal(await send(other), 200); // account 100 %
        assert.equal(await send(other), 402); // budget refused: its check sees all three
        await receiver.until((e) => thresholdsOf(e, 'account').length === 2 && thresholdsOf(e, 'key').length === 3);
        for (let i = 0; i < 3; i++) {
          assert.equal(await send(other), 402);
          assert.equal(await send(capped.key), 402);
        }
        const account = receiver.events.find((e) => e.data.scope === 'account' && e.data.threshold === 100)!;
        assert.deepEqual(account.data, {
          scope: 'account',
          id: gw.accountId,
          account_id: gw.accountId,
          threshold: 100,
          amount: '420000',
          spent: '420000',
          window_start: '2026-03-10T00:00:00.000Z',
        });
        const key = receiver.events.find((e) => e.data.scope === 'key' && e.data.threshold === 50)!;
        assert.equal(key.data.id, capped.record.hash);
        assert.equal(key.data.window_start, null, 'a limit without reset has no window');

        // The next day: the daily budget fires again, from 50 %.
        now = Date.UTC(2026, 2, 11, 12);
        assert.equal(await send(other), 200);
        assert.equal(await send(other), 200);
        assert.equal(await send(other), 200);
        now += 10_000;
        await receiver.until((e) => thresholdsOf(e, 'account').length === 4);
        assert.deepEqual(thresholdsOf(receiver.events, 'account'), [50, 50, 100, 100]);
        assert.deepEqual(thresholdsOf(receiver.events, 'key'), [50, 80, 100], 'each fired once');
      } finally {
        await receiver.close();
      }
    });
  });

describe('budget.threshold across a fleet: two instances on one Postgres and Redis', { skip: fleetSkip }, () => {
  test('both see the threshold crossed at once; one event is sent', async () => {
    redis ??= await startRedis();
    const upstream = await startHookedUpstream();
    const env = { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    const now = Date.UTC(2026, 2, 10, 12);
    const yaml = emulatorConfig(upstream.baseUrl) + hooksYaml;
    const a = await startTestGateway({ yaml, credits: '20', now: () => now, env });
    const b = await startTestGateway({ yaml, credits: '20', now: () => now, env });
    const receiver = await startEventReceiver();
    try {
      const admin = (await createAdminKey(a)).key;
      const mgmt = (await a.services.accountService.createKey({ accountId: a.accountId, name: 'm', management: true })).key;
      assert.equal(
        (await call('POST', `${a.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['budget.threshold', 'key.created'] }))
          .status,
        201,
      );
      assert.equal(
        (
          await call('PATCH', `${a.origin}/api/v1/admin/accounts/${a.accountId}`, admin, {
            budget: { amount: '0.00028', alert_thresholds: [50] },
          })
        ).status,
        200,
      );
      const key = (await a.services.accountService.createKey({ accountId: a.accountId, name: 'k' })).key;
      // One answer spends 50 %, committed; then both instances check at once (a refusal forces the check;
      // the key and account, made through instance a, are in the one database both serve).
      assert.equal((await postJson(`${a.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);
      await a.flush();
      const probe = { ...chat, max_tokens: 30_000 }; // refused: its worst case is beyond the budget
      const [ra, rb] = await Promise.all(
        [a, b].map((gw) => postJson(`${gw.baseUrl}/chat/completions`, probe, { authorization: `Bearer ${key}` })),
      );
      assert.deepEqual([ra!.status, rb!.status], [402, 402]);
      await receiver.until((e) => e.some((x) => x.type === 'budget.threshold'));
      // A marker event after them: every budget.threshold queued before it has been sent by then.
      assert.equal((await postJson(`${a.origin}/api/v1/keys`, { name: 'marker' }, { authorization: `Bearer ${mgmt}` })).status, 201);
      await receiver.until((e) => e.some((x) => x.type === 'key.created'));
      assert.equal(receiver.events.filter((x) => x.type === 'budget.threshold').length, 1);
    } finally {
      await receiver.close();
      await a.close();
      await b.close();
      await upstream.close();
    }
  });
});
