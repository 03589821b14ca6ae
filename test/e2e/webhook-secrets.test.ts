import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MasterKey } from '../../src/auth/byok-cipher.ts';
import { call } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { runCliWithEnv } from '../support/run-cli.ts';
import { SIM_ONLY, startTestGateway } from '../support/test-gateway.ts';

// Webhook signing secrets sealed at rest (docs/security.md#webhook-secrets): on SQLite without
// byok.master_key, by a key file the gateway makes in its data directory (0600); no byte of
// the secret is in the database files, and deliveries are still signed with it. A row left in
// clear by an older gateway (before migration 24) is sealed when the gateway starts. The BYOK
// master-key rotation re-seals webhook secrets too, after which a gateway with the new key
// signs with them. A fleet on Postgres without byok.master_key refuses to register one.

const HOOKS = `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 20 }\n`;
const WITH_MASTER = `${HOOKS}byok: { master_key: "env:BYOK_MASTER" }\n`;

/** docs/webhooks.md's verification snippet. */
function verifies(secret: string, header: string, rawBody: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function startReceiver() {
  const got: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
      for (const w of waiters.filter((x) => got.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    until: (n: number) => new Promise<void>((resolve) => (got.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Every file of the data directory but the config and the key file: the database, its WAL and shared memory. */
function databaseBytes(dir: string): Buffer {
  return Buffer.concat(
    readdirSync(dir)
      .filter((f) => f !== 'switchyard.yaml' && f !== 'webhook-secrets.key' && statSync(join(dir, f)).isFile())
      .map((f) => readFileSync(join(dir, f))),
  );
}

const newSecret = () => `whsec_test_${randomBytes(24).toString('hex')}`;

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

describe('webhook secrets at rest on SQLite', () => {
  test('without a master key: sealed by the local key file (0600), not in the database files, deliveries signed; a row in clear is sealed at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-webhook-secrets-'));
    const receiver = await startReceiver();
    try {
      const gw = await startTestGateway({ yaml: HOOKS, dir });
      const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
      const secret = newSecret();
      const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['key.created'], secret });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      assert.equal(created.json.secret, secret, 'shown once, in the answer');
      const keyFile = join(dir, 'webhook-secrets.key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const row = gw.db
        .prepare('SELECT secret, secret_key, secret_master_key_id FROM webhooks WHERE id = ?')
        .get(created.json.data.id) as Record<string, string>;
      assert.notEqual(row.secret, secret);
      assert.equal(row.secret_master_key_id, MasterKey.parse(readFileSync(keyFile, 'utf8'))!.id);
      assert.ok(!databaseBytes(dir).includes(secret), 'no byte of the secret in the database files');
      assert.ok(!databaseBytes(dir).includes(secret.slice(11)), 'nor its random part');

      assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'k1' })).status, 201);
      await receiver.until(1);
      assert.ok(
        verifies(secret, receiver.got[0]!.headers['x-switchyard-signature'] as string, receiver.got[0]!.body),
        'signed with the secret',
      );
      // Recorded as delivered before the gateway stops (else the next start sends it again: at least once).
      for (;;) {
        const d = await call('GET', `${gw.origin}/api/v1/webhooks/${created.json.data.id}/deliveries`, mgmt);
        if (d.json.data[0]?.status === 'delivered') break;
        await new Promise((r) => setImmediate(r));
      }

      // A webhook an older gateway stored in clear (before migration 24: no secret_key).
      const clear = newSecret();
      gw.db
        .prepare(`INSERT INTO webhooks (id, account_id, url, events, secret, created_at) VALUES (?, ?, ?, '["key.created"]', ?, ?)`)
        .run('wh_old_clear', gw.accountId, receiver.url, clear, new Date().toISOString());
      await gw.close();

      const again = await startTestGateway({ yaml: HOOKS, dir });
      try {
        const old = again.db.prepare('SELECT secret, secret_key FROM webhooks WHERE id = ?').get('wh_old_clear') as Record<
          string,
          string | null
        >;
        assert.notEqual(old.secret, clear, 'sealed at start');
        assert.notEqual(old.secret_key, null);
        assert.equal((await call('POST', `${again.origin}/api/v1/keys`, mgmt, { name: 'k2' })).status, 201);
        await receiver.until(3);
        const byBody = receiver.got.slice(1);
        assert.equal(byBody.length, 2, 'one delivery per webhook');
        assert.ok(byBody.every((r) => JSON.parse(r.body).data.key.name === 'k2'));
        assert.equal(byBody.filter((r) => verifies(secret, r.headers['x-switchyard-signature'] as string, r.body)).length, 1);
        assert.equal(
          byBody.filter((r) => verifies(clear, r.headers['x-switchyard-signature'] as string, r.body)).length,
          1,
          'the once-clear secret still signs',
        );
      } finally {
        await again.close();
      }
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('switchyard byok rotate-master-key re-seals webhook secrets; a gateway with the new key signs with them', async () => {
    const OLD = randomBytes(32).toString('base64');
    const NEW = randomBytes(32).toString('hex');
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-webhook-rotation-'));
    const receiver = await startReceiver();
    try {
      const gw = await startTestGateway({ yaml: WITH_MASTER, env: { BYOK_MASTER: OLD }, dir });
      const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
      const secret = newSecret();
      const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: receiver.url, events: ['key.created'], secret });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const idOf = () => (gw.db.prepare('SELECT secret_master_key_id AS id FROM webhooks').get() as { id: string }).id;
      assert.equal(idOf(), MasterKey.parse(OLD)!.id, 'sealed by the master key (no local key file then)');
      assert.throws(() => statSync(join(dir, 'webhook-secrets.key')));
      await gw.close();

      const wrong = runCliWithEnv(
        dir,
        { BYOK_MASTER: randomBytes(32).toString('base64'), NEXT: NEW },
        'byok',
        'rotate-master-key',
        '--new',
        'env:NEXT',
      );
      assert.equal(wrong.code, 1, wrong.out + wrong.err);
      assert.match(wrong.err, /webhook wh_\w+ .*does not open with the old master key/);
      const r = runCliWithEnv(dir, { BYOK_MASTER: OLD, NEXT: NEW }, 'byok', 'rotate-master-key', '--new', 'env:NEXT', '--json');
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out), { resealed: 0, already_new: 0, webhook_secrets: 1 });

      const next = await startTestGateway({ yaml: WITH_MASTER, env: { BYOK_MASTER: NEW }, dir });
      try {
        assert.equal(
          (next.db.prepare('SELECT secret_master_key_id AS id FROM webhooks').get() as { id: string }).id,
          MasterKey.parse(NEW)!.id,
        );
        assert.equal((await call('POST', `${next.origin}/api/v1/keys`, mgmt, { name: 'after rotation' })).status, 201);
        await receiver.until(1);
        assert.ok(verifies(secret, receiver.got[0]!.headers['x-switchyard-signature'] as string, receiver.got[0]!.body));
      } finally {
        await next.close();
      }
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('webhook secrets at rest on Postgres', { skip: postgresUnavailable() ?? redisUnavailable() ?? false }, () => {
  test('sealed by byok.master_key; without one, registering a webhook is refused with 503', async () => {
    redis ??= await startRedis();
    const url = await createTestDatabase();
    const env = { LOCAL_KEY: 'k', DATABASE_URL: url, REDIS_URL: redis.url };
    const gw = await startTestGateway({ yaml: HOOKS, env });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
      const secret = newSecret();
      const created = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, {
        url: 'http://127.0.0.1:9/hook',
        events: ['key.created'],
        secret,
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const rows = (await client.query('SELECT secret, secret_key FROM webhooks')).rows as Array<{
        secret: string;
        secret_key: string | null;
      }>;
      assert.equal(rows.length, 1);
      assert.ok(!rows[0]!.secret.includes(secret.slice(11)) && rows[0]!.secret_key !== null);
    } finally {
      await client.end();
      await gw.close();
    }
    const bare = await startTestGateway({
      yaml: HOOKS,
      env: { ...env, DATABASE_URL: await createTestDatabase() },
      tweak: (c) => {
        c.byok = { ...c.byok, masterKey: null };
      },
    });
    try {
      const mgmt = (await bare.services.accountService.createKey({ accountId: bare.accountId, name: 'mgmt', management: true })).key;
      const refused = await call('POST', `${bare.origin}/api/v1/webhooks`, mgmt, {
        url: 'http://127.0.0.1:9/hook',
        events: ['key.created'],
      });
      assert.equal(refused.status, 503, JSON.stringify(refused.json));
      assert.equal(refused.json.error.code, 'webhook_secrets_not_configured');
      assert.match(refused.json.error.message, /byok\.master_key/);
    } finally {
      await bare.close();
    }
  });
});
