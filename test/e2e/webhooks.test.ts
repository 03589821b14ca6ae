import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';
import { call } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Signed webhooks through a real gateway and a real receiver on loopback (allowed with
// webhooks.allow_private_addresses): the signature checked with docs/webhooks.md's snippet,
// a retry after a 500, the delivery log, a replay, the SSRF refusal without the option, and
// a receiver that never answers not holding up a model request.

/** docs/webhooks.md's verification snippet, as a receiver would paste it. */
function verifySignature(secret: string, header: string, rawBody: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  res: ServerResponse;
}

/** A receiver answering each request as `answer` says (a status, or 'hang': never). */
async function startReceiver(answer: (n: number) => number | 'hang') {
  const got: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), res });
      const a = answer(got.length);
      if (a !== 'hang') res.writeHead(a).end();
      for (const w of waiters.filter((x) => got.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    /** Resolves once n requests have arrived. */
    until: (n: number) => new Promise<void>((resolve) => (got.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const ALLOWED = `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 20, timeout_ms: 30000, balance_low_usd: "10" }\n`;

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
  describe(`webhooks on a gateway that allows a loopback receiver: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let mgmt: string;
    before(async () => {
      gw = await startTestGateway({ yaml: ALLOWED, env: await engine.env() });
      mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    });
    after(() => gw?.close());

    /** The webhook's deliveries, asked again until `done` holds for them (each ask after the last answer). */
    async function deliveriesUntil(id: string, done: (d: any[]) => boolean): Promise<any[]> {
      for (;;) {
        const res = await call('GET', `${gw.origin}/api/v1/webhooks/${id}/deliveries`, mgmt);
        assert.equal(res.status, 200, JSON.stringify(res.json));
        if (done(res.json.data)) return res.json.data;
        await new Promise((r) => setImmediate(r));
      }
    }

    test('a signed key.created after a 500, retried, logged, then replayed', async () => {
      const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
      try {
        const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, {
          url: receiver.url,
          events: ['key.created', 'key.revoked'],
        });
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const { secret } = created.json;
        assert.match(secret, /^whsec_/);
        const hookId = created.json.data.id;
        const listed = await call('GET', `${gw.origin}/api/v1/webhooks`, mgmt);
        assert.deepEqual(
          listed.json.data.map((w: any) => w.id),
          [hookId],
        );
        assert.ok(!JSON.stringify(listed.json).includes(secret), 'the secret is shown once only');

        const key = await postJson(`${gw.origin}/api/v1/keys`, { name: 'hooked' }, { authorization: `Bearer ${mgmt}` });
        assert.equal(key.status, 201);
        await receiver.until(2);
        for (const r of receiver.got) {
          assert.equal(r.headers['content-type'], 'application/json');
          assert.ok(
            verifySignature(secret, r.headers['x-switchyard-signature'] as string, r.body),
            r.headers['x-switchyard-signature'] as string,
          );
          assert.ok(!verifySignature('whsec_wrong', r.headers['x-switchyard-signature'] as string, r.body));
        }
        const event = JSON.parse(receiver.got[1]!.body);
        assert.deepEqual(Object.keys(event).sort(), ['created', 'data', 'id', 'type']);
        assert.equal(event.type, 'key.created');
        assert.equal(event.data.key.hash, key.json.data.hash);
        assert.equal(JSON.parse(receiver.got[0]!.body).id, event.id, 'the retry sends the same event');

        const [d] = await deliveriesUntil(hookId, (ds) => ds[0]?.status === 'delivered');
        assert.equal(d.attempts, 2);
        assert.equal(d.event_id, event.id);
        assert.deepEqual(
          d.attempt_log.map((a: any) => a.status),
          [500, 200],
        );
        assert.equal(d.attempt_log[0].error, 'HTTP 500');

        const replay = await call('POST', `${gw.origin}/api/v1/webhooks/${hookId}/deliveries/${d.id}/replay`, mgmt);
        assert.equal(replay.status, 202, JSON.stringify(replay.json));
        await receiver.until(3);
        assert.equal(JSON.parse(receiver.got[2]!.body).id, event.id);
        assert.ok(verifySignature(secret, receiver.got[2]!.headers['x-switchyard-signature'] as string, receiver.got[2]!.body));
        const all = await deliveriesUntil(hookId, (ds) => ds.length === 2 && ds.every((x) => x.status === 'delivered'));
        assert.equal(all[0].id, replay.json.data.id);

        // key.revoked when the key is deleted; an unknown delivery is a 404.
        assert.equal((await call('DELETE', `${gw.origin}/api/v1/keys/${key.json.data.hash}`, mgmt)).status, 200);
        await receiver.until(4);
        assert.equal(JSON.parse(receiver.got[3]!.body).type, 'key.revoked');
        assert.equal((await call('POST', `${gw.origin}/api/v1/webhooks/${hookId}/deliveries/whd_nope/replay`, mgmt)).status, 404);
        assert.equal((await call('DELETE', `${gw.origin}/api/v1/webhooks/${hookId}`, mgmt)).status, 200);
        assert.equal((await call('GET', `${gw.origin}/api/v1/webhooks/${hookId}/deliveries`, mgmt)).status, 404);
      } finally {
        await receiver.close();
      }
    });

    test('key.limit_reached and balance.low after a model request, once each', async () => {
      const receiver = await startReceiver(() => 200);
      try {
        const account = await gw.services.accountService.createAccount({ name: 'low', type: 'user', tier: 'tier2', creditsUsd: '5' });
        const owner = (await gw.services.accountService.createKey({ accountId: account.id, name: 'm', management: true })).key;
        const created = await call('POST', `${gw.origin}/api/v1/webhooks`, owner, {
          url: receiver.url,
          events: ['key.limit_reached', 'balance.low'],
        });
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const capped = await gw.services.accountService.createKey({ accountId: account.id, name: 'capped', limitUsd: '0' });
        const chat = { model: 'sim-fast', messages: [{ role: 'user', content: 'hi' }] };
        const refused = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${capped.key}` });
        assert.equal(refused.status, 402, refused.text);
        await receiver.until(2);
        const events = receiver.got.map((r) => JSON.parse(r.body)).sort((a, b) => a.type.localeCompare(b.type));
        assert.deepEqual(
          events.map((e) => e.type),
          ['balance.low', 'key.limit_reached'],
        );
        assert.equal(events[0].data.account_id, account.id);
        assert.equal(events[0].data.threshold, '10');
        assert.equal(events[1].data.key.hash, capped.record.hash);
        assert.equal(events[1].data.limit, '0');
        // Refused again: neither fires a second time (the next delivery seen is a key.created).
        assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${capped.key}` })).status, 402);
        await call('POST', `${gw.origin}/api/v1/webhooks`, owner, { url: receiver.url, events: ['key.created'] });
        assert.equal((await postJson(`${gw.origin}/api/v1/keys`, { name: 'marker' }, { authorization: `Bearer ${owner}` })).status, 201);
        await receiver.until(3);
        assert.equal(JSON.parse(receiver.got[2]!.body).type, 'key.created');
      } finally {
        await receiver.close();
      }
    });

    test('a receiver that never answers does not hold up a model request', async () => {
      const receiver = await startReceiver(() => 'hang');
      try {
        const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['key.created'] });
        assert.equal(created.status, 201);
        const key = await postJson(`${gw.origin}/api/v1/keys`, { name: 'while hung' }, { authorization: `Bearer ${mgmt}` });
        assert.equal(key.status, 201);
        await receiver.until(1); // the delivery is now waiting on the receiver (timeout 30 s)
        const res = await postJson(
          `${gw.baseUrl}/chat/completions`,
          { model: 'sim-fast', messages: [{ role: 'user', content: 'hi' }] },
          { authorization: `Bearer ${gw.key}` },
        );
        assert.equal(res.status, 200, res.text);
        // Answered while the receiver still holds the delivery: nothing recorded for it yet.
        assert.equal(receiver.got[0]!.res.writableEnded, false);
        const [d] = (await call('GET', `${gw.origin}/api/v1/webhooks/${created.json.data.id}/deliveries`, mgmt)).json.data;
        assert.equal(d.status, 'pending');
        assert.equal(d.attempts, 0);
      } finally {
        await receiver.close();
      }
    });

    test("strict input: an unknown event or field is a 400 naming it; another account's webhook is not found", async () => {
      const bad = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: 'http://127.0.0.1:9/x', events: ['key.exploded'] });
      assert.equal(bad.status, 400);
      const extra = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, {
        url: 'http://127.0.0.1:9/x',
        events: ['key.created'],
        colour: 'red',
      });
      assert.equal(extra.status, 400);
      assert.match(JSON.stringify(extra.json), /colour/);
      assert.equal((await call('GET', `${gw.origin}/api/v1/webhooks`, gw.key)).status, 403);
      const other = await gw.services.accountService.createAccount({ name: 'other', type: 'user', tier: 'free', creditsUsd: '0' });
      const otherMgmt = (await gw.services.accountService.createKey({ accountId: other.id, name: 'm', management: true })).key;
      const mine = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: 'http://127.0.0.1:9/x', events: ['key.created'] });
      assert.equal((await call('DELETE', `${gw.origin}/api/v1/webhooks/${mine.json.data.id}`, otherMgmt)).status, 404);
      assert.equal((await call('DELETE', `${gw.origin}/api/v1/webhooks/${mine.json.data.id}`, mgmt)).status, 200);
    });
  });

describe('webhooks without webhooks.allow_private_addresses', () => {
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway();
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
  });
  after(() => gw?.close());

  test('loopback, private and link-local targets are refused (400 naming the option)', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const res = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url, events: ['key.created'] });
      assert.equal(res.status, 400, url);
      assert.equal(res.json.error.code, 'invalid_parameter', url);
      assert.match(res.json.error.message, /allow_private_addresses/, url);
    }
    assert.deepEqual((await call('GET', `${gw.origin}/api/v1/webhooks`, mgmt)).json.data, []);
  });
});

describe('a webhook registered while private addresses were allowed, delivered after they no longer are', () => {
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ yaml: ALLOWED });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
  });
  after(() => gw?.close());

  test('each attempt is refused at connect and logged; the receiver hears nothing', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['key.created'] });
      assert.equal(created.status, 201);
      const path = join(gw.dir, 'switchyard.yaml');
      writeFileSync(path, `${SIM_ONLY}webhooks: { retry_base_ms: 20, max_attempts: 2 }\n`);
      const result = gw.services.inForce.reload(() => {
        const c = loadConfig({ path, env: { SWITCHYARD_DATA_DIR: gw.dir } });
        c.server = { ...c.server, host: '127.0.0.1', port: 0 };
        return c;
      });
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal((await postJson(`${gw.origin}/api/v1/keys`, { name: 'k' }, { authorization: `Bearer ${mgmt}` })).status, 201);
      let d: any;
      for (;;) {
        [d] = (await call('GET', `${gw.origin}/api/v1/webhooks/${created.json.data.id}/deliveries`, mgmt)).json.data;
        if (d?.status === 'failed') break;
        await new Promise((r) => setImmediate(r));
      }
      assert.equal(d.attempts, 2);
      for (const a of d.attempt_log) {
        assert.equal(a.status, null);
        assert.match(a.error, /private or loopback/);
      }
      assert.equal(receiver.got.length, 0);
    } finally {
      await receiver.close();
    }
  });
});
