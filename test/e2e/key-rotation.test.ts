import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { runCli } from '../support/run-cli.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';

// Gateway key rotation over HTTP: POST /api/v1/keys/{hash}/rotate (management key) and
// /api/v1/admin/keys/{hash}/rotate (admin key) give the same key record a new secret. The
// old secret stops at once, or after `overlap_seconds` by the gateway's injected clock (no
// sleeps). On SQLite, and on Postgres + Redis with two gateway instances: a rotation made on
// one is refused at once on the other, which had the old secret in its auth cache.

const chat = { model: 'switchyard/sim-pro', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };
const YAML = `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 20 }\n`;
const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;

let redis: Promise<RedisServer> | undefined;
after(async () => {
  await (await redis)?.stop();
  await stopPostgres();
});

interface Engine {
  name: string;
  skip: string | false;
  /** Options of the first gateway, and of the second one (null: one gateway only). */
  options(): Promise<{ first: Partial<TestGatewayOptions>; second: Partial<TestGatewayOptions> | null }>;
}

const ENGINES: Engine[] = [
  { name: 'SQLite', skip: false, options: async () => ({ first: {}, second: null }) },
  {
    name: 'Postgres and Redis, two gateway instances',
    skip: fleetSkip,
    options: async () => {
      redis ??= startRedis();
      const env = { DATABASE_URL: await createTestDatabase(), REDIS_URL: (await redis).url };
      return { first: { env }, second: { env } };
    },
  },
];

for (const engine of ENGINES) {
  describe(`key rotation: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    /** The second instance of a fleet, or the same gateway on SQLite. */
    let other: TestGateway;
    let mgmt: string;
    let admin: string;
    let now = Date.UTC(2026, 2, 2, 9, 0, 0);
    before(async () => {
      const o = await engine.options();
      gw = await startTestGateway({ yaml: YAML, now: () => now, ...o.first });
      other = o.second === null ? gw : await startTestGateway({ yaml: YAML, now: () => now, ...o.second });
      mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
      admin = (await createAdminKey(gw)).key;
    });
    after(async () => {
      if (other !== gw) await other?.close();
      await gw?.close();
    });

    /**
     * Resolves once the second instance has heard of the key's change twice: the account
     * service announces it as the rotation is written, the route once more after the commit.
     * (One gateway: nothing to wait for.) Call it before the rotation.
     */
    function heardOnOther(hash: string): () => Promise<void> {
      if (other === gw) return async () => {};
      let heard = 0;
      const { promise, resolve } = Promise.withResolvers<void>();
      other.services.fleet!.bus.subscribe((m) => {
        if (m.kind === 'key' && m.keyHash === hash && ++heard === 2) resolve();
      });
      return () => promise;
    }

    const complete = (on: TestGateway, key: string) => postJson(`${on.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    const everywhere = async (key: string): Promise<number[]> => [(await complete(gw, key)).status, (await complete(other, key)).status];

    async function newKey(name: string): Promise<{ key: string; hash: string; data: any }> {
      const res = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name, limit: '5' });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      return { key: res.json.key, hash: res.json.data.hash, data: res.json.data };
    }

    async function usage(hash: string): Promise<number> {
      await gw.flush();
      return (await call('GET', `${gw.origin}/api/v1/keys/${hash}`, mgmt)).json.data.usage;
    }

    test('without overlap: the old secret is refused at once (on every instance), the new one works, the record and its usage go on', async () => {
      const k = await newKey('ci');
      assert.deepEqual(await everywhere(k.key), [200, 200], 'both instances have the old secret cached');
      const used = await usage(k.hash);
      assert.ok(used > 0);

      const heard = heardOnOther(k.hash);
      const res = await call('POST', `${gw.origin}/api/v1/keys/${k.hash}/rotate`, mgmt); // no body: overlap 0
      assert.equal(res.status, 200, JSON.stringify(res.json));
      await heard();
      assert.match(res.json.key, /^sk-sy-v1-[A-Za-z0-9_-]{43}$/);
      assert.notEqual(res.json.key, k.key);
      assert.equal(res.json.previous_key_expires_at, null);
      const { data } = res.json;
      for (const field of ['hash', 'name', 'label', 'limit', 'limit_reset', 'created_at', 'expires_at'])
        assert.deepEqual(data[field], k.data[field], field);
      assert.equal(data.usage, used, 'the usage stays with the record');

      assert.deepEqual(await everywhere(k.key), [401, 401]);
      const refused = await complete(other, k.key);
      assert.match(refused.text, /Authentication required/);
      assert.deepEqual(await everywhere(res.json.key), [200, 200]);
      assert.ok((await usage(k.hash)) > used, 'the new secret spends on the same record');
      // The record is still found by its hash (the id the API uses); the answer held the key once.
      const one = await call('GET', `${gw.origin}/api/v1/keys/${k.hash}`, mgmt);
      assert.equal(one.status, 200);
      assert.equal(JSON.stringify(one.json).includes(res.json.key), false);

      const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?action=key.rotate`, admin);
      assert.equal(audit.status, 200, JSON.stringify(audit.json));
      const entry = audit.json.data.find((e: any) => e.target === k.hash);
      assert.ok(entry, JSON.stringify(audit.json.data));
      assert.equal(entry.details.overlap_seconds, 0);
      assert.equal(JSON.stringify(audit.json).includes(res.json.key), false, 'the new key is never in the audit log');
    });

    test("with an overlap (admin API): both secrets work until it ends, by the gateway's clock; then the old one gets 401 everywhere", async () => {
      const k = await newKey('deploy');
      assert.deepEqual(await everywhere(k.key), [200, 200]);
      const heard = heardOnOther(k.hash);
      const res = await call('POST', `${gw.origin}/api/v1/admin/keys/${k.hash}/rotate`, admin, { overlap_seconds: 600 });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      await heard();
      assert.equal(res.json.data.hash, k.hash);
      assert.equal(res.json.previous_key_expires_at, new Date(now + 600_000).toISOString());
      assert.deepEqual(await everywhere(k.key), [200, 200], 'the old secret within the overlap');
      assert.deepEqual(await everywhere(res.json.key), [200, 200]);

      now += 599_000;
      assert.deepEqual(await everywhere(k.key), [200, 200], 'a second before the end');
      now += 1_000;
      assert.deepEqual(await everywhere(k.key), [401, 401], 'at the end: refused, with no cache to expire first');
      assert.match((await complete(other, k.key)).text, /rotated/);
      assert.deepEqual(await everywhere(res.json.key), [200, 200]);

      // Rotating again during a new overlap ends the oldest secret at once; the one it replaces overlaps.
      const heardAgain = heardOnOther(k.hash);
      const second = await call('POST', `${gw.origin}/api/v1/keys/${k.hash}/rotate`, mgmt, { overlap_seconds: 60 });
      assert.equal(second.status, 200);
      await heardAgain();
      assert.deepEqual(await everywhere(res.json.key), [200, 200]);
      assert.deepEqual(await everywhere(second.json.key), [200, 200]);
      now += 60_000;
      assert.deepEqual(await everywhere(res.json.key), [401, 401]);
      assert.deepEqual(await everywhere(k.key), [401, 401]);
      assert.deepEqual(await everywhere(second.json.key), [200, 200]);
    });

    test("the account's webhooks get key.rotated, naming the key and the overlap, never a secret", async () => {
      const bodies: string[] = [];
      const { promise: got, resolve } = Promise.withResolvers<void>();
      const receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          bodies.push(body);
          res.writeHead(200).end();
          resolve();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const hook = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url, events: ['key.rotated'] });
        assert.equal(hook.status, 201, JSON.stringify(hook.json));
        const k = await newKey('hooked');
        const res = await call('POST', `${gw.origin}/api/v1/keys/${k.hash}/rotate`, mgmt, { overlap_seconds: 30 });
        assert.equal(res.status, 200);
        await got;
        const event = JSON.parse(bodies[0]!);
        assert.equal(event.type, 'key.rotated');
        assert.equal(event.data.key.hash, k.hash);
        assert.equal(event.data.by, 'account');
        assert.equal(event.data.overlap_seconds, 30);
        assert.equal(event.data.previous_key_expires_at, res.json.previous_key_expires_at);
        assert.equal(bodies[0]!.includes(res.json.key) || bodies[0]!.includes(k.key), false);
        await call('DELETE', `${gw.origin}/api/v1/webhooks/${hook.json.data.id}`, mgmt);
      } finally {
        receiver.closeAllConnections();
        await new Promise<void>((r) => receiver.close(() => r()));
      }
    });

    test("bad input: a strict body, a bounded overlap, another account's key or an unknown one", async () => {
      const k = await newKey('strict');
      const rotate = (body: unknown, key = mgmt, hash = k.hash) => call('POST', `${gw.origin}/api/v1/keys/${hash}/rotate`, key, body);
      for (const body of [
        { overlap_seconds: 604_801 },
        { overlap_seconds: -1 },
        { overlap_seconds: 1.5 },
        { overlap_seconds: '60' },
        { overlap: 60 },
      ]) {
        const res = await rotate(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match(JSON.stringify(res.json), /overlap/);
      }
      const most = await rotate({ overlap_seconds: 604_800 });
      assert.equal(most.status, 200, 'seven days is the most');
      assert.equal((await rotate({}, mgmt, 'f'.repeat(64))).status, 404);
      // A management key of another account does not find this one.
      const stranger = await gw.services.accountService.createAccount({ name: 'stranger', creditsUsd: '1' });
      const theirs = (await gw.services.accountService.createKey({ accountId: stranger.id, name: 'm', management: true })).key;
      assert.equal((await rotate({}, theirs)).status, 404);
      // An API key cannot rotate (not even itself).
      assert.equal((await rotate({}, most.json.key)).status, 403);
      assert.equal((await call('POST', `${gw.origin}/api/v1/admin/keys/${'0'.repeat(64)}/rotate`, admin, {})).status, 404);
    });

    test(
      'switchyard keys rotate: the new key once, the old one stops (or overlaps with --overlap)',
      { skip: engine.name === 'SQLite' ? false : 'the CLI on a fleet is covered by the API tests' },
      async () => {
        const k = await newKey('cli');
        assert.equal((await complete(gw, k.key)).status, 200);
        const r = runCli(gw.dir, 'keys', 'rotate', k.hash, '--json');
        assert.equal(r.code, 0, r.err);
        const out = JSON.parse(r.out);
        assert.equal(out.hash, k.hash);
        assert.equal(out.previous_key_expires_at, null);
        await gw.seeCliChanges();
        assert.equal((await complete(gw, k.key)).status, 401);
        assert.equal((await complete(gw, out.key)).status, 200);

        const bad = runCli(gw.dir, 'keys', 'rotate', k.hash, '--overlap', '604801');
        assert.notEqual(bad.code, 0);
        assert.match(bad.err, /--overlap/);
        const overlapped = runCli(gw.dir, 'keys', 'rotate', k.hash, '--overlap', '3600');
        assert.equal(overlapped.code, 0, overlapped.err);
        assert.match(overlapped.out, /the old secret works until /);
        const fresh = /^ {4}(sk-sy-v1-\S+)$/m.exec(overlapped.out)![1]!;
        await gw.seeCliChanges();
        assert.equal((await complete(gw, out.key)).status, 200, 'the old secret within the overlap');
        assert.equal((await complete(gw, fresh)).status, 200);
      },
    );
  });
}
