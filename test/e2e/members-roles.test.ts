import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Members and roles through real HTTP (docs/governance.md): the role table on representative
// management routes, removal with each key choice (a disabled key gets 401, a member's
// session ends at once), usage and activity filtered by member, the audit log's who, and the
// member.added / member.removed events in the webhook outbox. On SQLite and on Postgres.

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

const ENGINES = [
  { name: 'SQLite', skip: false as string | false, env: async (): Promise<Record<string, string>> => ({}) },
  {
    name: 'Postgres and Redis',
    skip: postgresUnavailable() ?? redisUnavailable() ?? false,
    env: async (): Promise<Record<string, string>> => {
      redis = await startRedis();
      return { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    },
  },
];

for (const engine of ENGINES)
  describe(`members and roles: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let owner: string; // a management key of no member: acts as owner
    let admin: string;
    const api = (path: string) => `${gw.origin}/api/v1${path}`;
    /** A session of the member (as an emailed link's redemption makes), used as a bearer token. */
    const sessionOf = async (memberId: string) => (await gw.services.sessions.createForMember(memberId, 3_600_000)).token;
    const chat = (key: string, body: unknown) => postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` });
    const add = async (email: string, role: string) => {
      const res = await call('POST', api('/members'), owner, { email, name: email.split('@')[0], role });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      return res.json.data as { id: string; email: string; role: string };
    };

    before(async () => {
      gw = await startTestGateway({
        yaml: `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 3600000, timeout_ms: 1000 }\n`,
        env: await engine.env(),
      });
      owner = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
      admin = (await createAdminKey(gw)).key;
    });
    after(() => gw?.close());

    test('the role table: each role allowed or refused on representative routes', async () => {
      const roles = {
        admin: await add('ada@example.com', 'admin'),
        member: await add('max@example.com', 'member'),
        viewer: await add('vic@example.com', 'viewer'),
      };
      const tokens = {
        admin: await sessionOf(roles.admin.id),
        member: await sessionOf(roles.member.id),
        viewer: await sessionOf(roles.viewer.id),
      };
      // [method, path, body, the roles that may]
      const matrix: Array<[string, string, unknown, string[]]> = [
        ['GET', '/usage', undefined, ['owner', 'admin', 'member', 'viewer']],
        ['GET', '/activity', undefined, ['owner', 'admin', 'member', 'viewer']],
        ['GET', '/members', undefined, ['owner', 'admin', 'member', 'viewer']],
        ['GET', '/keys', undefined, ['owner', 'admin', 'member']],
        ['POST', '/keys', { name: 'k' }, ['owner', 'admin', 'member']],
        ['GET', '/webhooks', undefined, ['owner', 'admin']],
        ['PATCH', '/account', { name: 'renamed' }, ['owner', 'admin']],
        ['POST', '/members', { email: 'new-%@example.com', role: 'viewer' }, ['owner', 'admin']],
        ['GET', '/ledger', undefined, ['owner']],
      ];
      const callers: Record<string, string> = { owner, ...tokens };
      for (const [method, path, body, allowed] of matrix) {
        for (const [role, token] of Object.entries(callers)) {
          const b = body === undefined ? undefined : JSON.parse(JSON.stringify(body).replace('%', role));
          const res = await call(method, api(path), token, b);
          if (allowed.includes(role)) assert.ok(res.status < 300, `${role} ${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
          else {
            assert.equal(res.status, 403, `${role} ${method} ${path}: ${res.status}`);
            assert.match(res.json.error.message, new RegExp(`needs the \\w+ role.*you are a ${role}`));
          }
        }
      }
      // An admin manages members below owner only; the operator's admin key is above all accounts.
      const byAdmin = await call('POST', api('/members'), tokens.admin, { email: 'boss@example.com', role: 'owner' });
      assert.equal(byAdmin.status, 403);
      const ownerMember = await add('own@example.com', 'owner');
      assert.equal((await call('DELETE', api(`/members/${ownerMember.id}?keys=disable`), tokens.admin)).status, 403);
      assert.equal((await call('PATCH', api(`/members/${roles.viewer.id}`), tokens.admin, { role: 'owner' })).status, 403);
      assert.equal((await call('PATCH', api(`/members/${roles.viewer.id}`), tokens.admin, { name: 'Vic' })).status, 200);
      assert.equal((await call('GET', api(`/admin/accounts/${gw.accountId}/members`), admin)).status, 200);
      assert.equal((await call('GET', api('/members'), admin)).status, 403, 'the admin API key uses the admin routes');
      // A member sees only their own keys: the one they made, not the owner's.
      const ownerKey = await call('POST', api('/keys'), owner, { name: 'owners' });
      const mine = (await call('GET', api('/keys'), tokens.member)).json.data as Array<{ hash: string; member_id: string | null }>;
      assert.ok(mine.length >= 1 && mine.every((k) => k.member_id === roles.member.id), JSON.stringify(mine));
      assert.equal((await call('GET', api(`/keys/${ownerKey.json.data.hash}`), tokens.member)).status, 404);
      assert.equal((await call('GET', api(`/usage?member=${roles.admin.id}`), tokens.member)).status, 403);
      // Duplicate email (case-insensitive) and bad role are clear 400s.
      const dup = await call('POST', api('/members'), owner, { email: 'ADA@example.com' });
      assert.equal(dup.status, 400);
      assert.equal(dup.json.error.param, 'email');
      assert.equal((await call('POST', api('/members'), owner, { email: 'x@example.com', role: 'king' })).status, 400);
    });

    test('removal: keys disabled (401 at once) or reassigned; sessions end; audited and emitted', async () => {
      const hook = await call('POST', api('/webhooks'), owner, {
        url: 'http://127.0.0.1:9/hook',
        events: ['member.added', 'member.removed'],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      const ann = await add('ann@example.com', 'member');
      const bob = await add('bob@example.com', 'member');
      const cat = await add('cat@example.com', 'member');
      const annSession = await sessionOf(ann.id);
      const annKey = await call('POST', api('/keys'), annSession, { name: 'ann key' });
      assert.equal(annKey.json.data.member_id, ann.id);
      const bobSession = await sessionOf(bob.id);
      const bobKey = await call('POST', api('/keys'), bobSession, { name: 'bob key' });
      // Both keys call a model and spend.
      for (const k of [annKey.json.key, bobKey.json.key]) {
        const r = await chat(k, { model: 'sim-fast', messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(r.status, 200, JSON.stringify(r.json));
      }
      await gw.flush();
      // Filter by member: only Ann's key's records and usage.
      const activity = await call('GET', api(`/activity?member=${ann.id}`), owner);
      assert.equal(activity.status, 200, JSON.stringify(activity.json));
      assert.deepEqual([...new Set(activity.json.data.map((g: { key_hash: string }) => g.key_hash))], [annKey.json.data.hash]);
      const usage = await call('GET', api(`/usage?member=${ann.id}&group_by=key`), owner);
      assert.deepEqual(
        usage.json.data.map((g: { group: string }) => g.group),
        [annKey.json.data.hash],
      );
      assert.equal(usage.json.totals.requests, 1);
      const annKeys = await call('GET', api(`/keys?member=${ann.id}`), owner);
      assert.deepEqual(
        annKeys.json.data.map((k: { hash: string }) => k.hash),
        [annKey.json.data.hash],
      );
      const adminActivity = await call('GET', api(`/admin/generations?member=${bob.id}`), admin);
      assert.deepEqual([...new Set(adminActivity.json.data.map((g: { key_hash: string }) => g.key_hash))], [bobKey.json.data.hash]);
      const adminUsage = await call('GET', api(`/admin/usage?member=${bob.id}`), admin);
      assert.equal(adminUsage.json.totals.requests, 1);
      // A member reads their own generations only; the owner reads any of the account's.
      const annGen = activity.json.data[0].id as string;
      assert.equal((await call('GET', api(`/generation?id=${annGen}`), bobSession)).status, 404);
      assert.equal((await call('GET', api(`/generation?id=${annGen}`), annSession)).status, 200);
      assert.equal((await call('GET', api(`/generation?id=${annGen}`), owner)).status, 200);
      // The member sees their own activity whatever they ask.
      const own = await call('GET', api('/activity'), bobSession);
      assert.deepEqual([...new Set(own.json.data.map((g: { key_hash: string }) => g.key_hash))], [bobKey.json.data.hash]);

      // The choice is required.
      assert.equal((await call('DELETE', api(`/members/${ann.id}`), owner)).status, 400);
      // Remove Ann, disabling her keys: her key gets 401 at once, her session ends.
      const removed = await call('DELETE', api(`/members/${ann.id}?keys=disable`), owner);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      assert.deepEqual(removed.json, { deleted: true, keys: 'disable', to: null, key_hashes: [annKey.json.data.hash] });
      const refused = await chat(annKey.json.key, { model: 'sim-fast', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(refused.status, 401);
      assert.equal((await call('GET', api('/usage'), annSession)).status, 401);
      // Remove Bob, giving his keys to Cat (through the admin API): the key still works, now Cat's.
      const moved = await call('DELETE', api(`/admin/accounts/${gw.accountId}/members/${bob.id}?keys=reassign&to=${cat.id}`), admin);
      assert.equal(moved.status, 200, JSON.stringify(moved.json));
      assert.equal((await call('GET', api('/usage'), bobSession)).status, 401);
      const still = await chat(bobKey.json.key, { model: 'sim-fast', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(still.status, 200);
      const catKeys = (await call('GET', api('/keys'), await sessionOf(cat.id))).json.data;
      assert.deepEqual(
        catKeys.map((k: { hash: string }) => k.hash),
        [bobKey.json.data.hash],
      );

      // Audit: who (the key, the member's sign-in, the operator) and what.
      const audit = await call('GET', api('/admin/audit?limit=200'), admin);
      const entries = audit.json.data as Array<{
        action: string;
        target: string;
        actor: { key_hash: string; label: string };
        details: Record<string, unknown>;
      }>;
      const find = (action: string, target: string) => entries.find((e) => e.action === action && e.target === target);
      assert.equal(find('member.add', ann.id)?.details.email, 'ann@example.com');
      assert.equal(find('member.remove', ann.id)?.details.keys, 'disable');
      assert.equal(find('key.disable', annKey.json.data.hash)?.details.member_removed, ann.id);
      assert.equal(find('key.reassign', bobKey.json.data.hash)?.details.to_member, cat.id);
      assert.equal(find('key.create', annKey.json.data.hash)?.actor.key_hash, `member:${ann.id}`);
      assert.match(find('member.remove', bob.id)!.actor.label, /^sk-sy-v1-/);
      // Webhook events queued for the account's endpoint.
      const deliveries = await call('GET', api(`/webhooks/${hook.json.data.id}/deliveries?limit=50`), owner);
      const types = deliveries.json.data.map((d: { type: string }) => d.type);
      assert.ok(types.filter((t: string) => t === 'member.added').length >= 3, JSON.stringify(types));
      assert.equal(types.filter((t: string) => t === 'member.removed').length, 2);
    });

    test('a role change takes effect at once', async () => {
      const dee = await add('dee@example.com', 'viewer');
      const token = await sessionOf(dee.id);
      assert.equal((await call('GET', api('/keys'), token)).status, 403);
      const up = await call('PATCH', api(`/members/${dee.id}`), owner, {
        role: 'member',
        allowed_models: ['anthropic/*'],
        budget: { amount: '5', reset: 'monthly' },
      });
      assert.equal(up.status, 200, JSON.stringify(up.json));
      assert.deepEqual(up.json.data.budget, { amount: 5, amount_usd: '5', reset: 'monthly' });
      assert.equal((await call('GET', api('/keys'), token)).status, 200);
      assert.equal((await call('PATCH', api(`/members/${dee.id}`), owner, { budget: { amount: -1 } })).status, 400);
    });
  });
