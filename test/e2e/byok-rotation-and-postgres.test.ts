import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { call } from '../support/admin-client.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { runCliWithEnv } from '../support/run-cli.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { ByokKeys } from '../../src/auth/byok-keys.ts';
import { MasterKey } from '../../src/auth/byok-cipher.ts';

// BYOK's master-key rotation (the CLI re-seals every stored key in one transaction, after
// which the new master key opens them and the old one does not), and BYOK on Postgres: the
// account's key reaches the upstream, the record is marked, the table holds no key in clear.

const ACCOUNT_KEY = 'sk-account-rot-T6yU1iO9pA3sD7fG';
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('hex');

const yaml = (base: string) => `sim: false
byok: { master_key: "env:BYOK_MASTER" }
providers:
  - id: acme-up
    kind: openai
    base_url: "${base}"
    api_key: "sk-operator-unused-000000"
models:
  - id: acme/own
    context_length: 32000
    capabilities: [text]
    endpoints:
      - provider: acme-up
        model: m-own
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

/** The CLI without blocking this process (its `byok set` calls the emulator this process serves). */
function runCliAsync(
  dir: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const bin = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: join(dir, 'switchyard.yaml'), ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

const bearer = (r: { headers: Record<string, unknown> }) => String(r.headers.authorization ?? '').replace(/^Bearer /, '');

describe('BYOK master-key rotation (SQLite, the CLI)', () => {
  let up: OpenAIChatEmulator;
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    up = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: yaml(up.baseUrl), credits: '0', env: { BYOK_MASTER: OLD } });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    assert.equal((await call('PUT', `${gw.origin}/api/v1/byok/acme-up`, mgmt, { key: ACCOUNT_KEY, mode: 'only' })).status, 200);
  });
  after(async () => {
    await gw.close();
    await up.close();
  });

  test('a wrong --old is refused and changes nothing; the right one re-seals every key, which then opens with the new key only', async () => {
    const before = gw.db.prepare('SELECT * FROM byok_keys').get() as Record<string, string>;
    const wrong = runCliWithEnv(
      gw.dir,
      { BYOK_MASTER: OLD, WRONG: randomBytes(32).toString('base64'), NEXT: NEW },
      'byok',
      'rotate-master-key',
      '--old',
      'env:WRONG',
      '--new',
      'env:NEXT',
    );
    assert.equal(wrong.code, 1, wrong.out + wrong.err);
    assert.match(wrong.err, /does not open with the old master key \(sealed by [0-9a-f]+\); nothing was changed/);
    assert.deepEqual(gw.db.prepare('SELECT * FROM byok_keys').get(), before);
    const missing = runCliWithEnv(gw.dir, { BYOK_MASTER: OLD }, 'byok', 'rotate-master-key', '--new', 'env:NOT_SET_ANYWHERE');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /NOT_SET_ANYWHERE/);

    const r = runCliWithEnv(gw.dir, { BYOK_MASTER: OLD, NEXT: NEW }, 'byok', 'rotate-master-key', '--new', 'env:NEXT', '--json');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), { resealed: 1, already_new: 0, webhook_secrets: 0 });
    const after = gw.db.prepare('SELECT * FROM byok_keys').get() as Record<string, string>;
    assert.notEqual(after.wrapped_key, before.wrapped_key);
    assert.equal(after.ciphertext, before.ciphertext, 'the key itself is not re-encrypted, its data key is re-wrapped');
    assert.equal(after.master_key_id, MasterKey.parse(NEW)!.id);

    // The new master key opens it (as a gateway restarted with byok.master_key → NEXT would), the old one no longer does.
    const withNew = await new ByokKeys(gw.services.stores, MasterKey.parse(NEW), () => 0).forAccount(gw.accountId);
    assert.equal(withNew?.keys.get('acme-up')?.credential.apiKey, ACCOUNT_KEY);
    const withOld = await new ByokKeys(gw.services.stores, MasterKey.parse(OLD), () => 0).forAccount(gw.accountId);
    assert.equal(withOld?.keys.size, 0);
    assert.deepEqual([...withOld.unusable], ['acme-up']);
    // Run again: nothing left to re-seal.
    const again = runCliWithEnv(gw.dir, { BYOK_MASTER: OLD, NEXT: NEW }, 'byok', 'rotate-master-key', '--new', 'env:NEXT', '--json');
    assert.deepEqual(JSON.parse(again.out), { resealed: 0, already_new: 1, webhook_secrets: 0 });
    // This gateway still runs on the old master key: it cannot open the key, and in mode
    // `only` it never uses the operator's key instead.
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/own', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.error.code, 'no_provider_available');
    assert.deepEqual(
      up.requests.filter((q) => q.path === '/v1/chat/completions'),
      [],
    );
    // `config check` reads the master key as the gateway would: a reference that does not resolve, or to a key of the wrong size, is named.
    const unset = runCliWithEnv(gw.dir, {}, 'config', 'check');
    assert.notEqual(unset.code, 0);
    assert.match(unset.err, /byok\.master_key.*BYOK_MASTER/);
    const short = runCliWithEnv(gw.dir, { BYOK_MASTER: 'not-32-bytes-of-key' }, 'config', 'check');
    assert.notEqual(short.code, 0);
    assert.match(short.err, /does not hold a 256-bit key/);
    assert.equal(short.err.includes('not-32-bytes-of-key'), false);
    assert.equal(runCliWithEnv(gw.dir, { BYOK_MASTER: NEW }, 'config', 'check').code, 0);
    // The CLI's list, under the new key: the last four, never the key.
    const list = runCliWithEnv(gw.dir, { BYOK_MASTER: NEW }, 'byok', 'list', '--account', gw.accountId, '--json');
    assert.equal(list.code, 0, list.err);
    assert.equal(JSON.parse(list.out).data[0].last_four, ACCOUNT_KEY.slice(-4));
    assert.equal(list.out.includes(ACCOUNT_KEY), false);

    // set (checked at the provider with the key) and remove, from a key file: never on the command line.
    const keyFile = join(gw.dir, 'other.key');
    writeFileSync(keyFile, 'sk-cli-given-key-J8kL3zX5cV\n');
    const set = await runCliAsync(
      gw.dir,
      { BYOK_MASTER: NEW },
      'byok',
      'set',
      '--account',
      gw.accountId,
      '--provider',
      'acme-up',
      '--mode',
      'prefer',
      '--label',
      'cli',
      '--key-file',
      keyFile,
      '--json',
    );
    assert.equal(set.code, 0, set.err);
    assert.equal(JSON.parse(set.out).data.last_four, 'X5cV');
    assert.equal(set.out.includes('sk-cli-given-key'), false);
    assert.equal(
      String(up.requests.filter((q) => q.path === '/v1/models').at(-1)?.headers.authorization),
      'Bearer sk-cli-given-key-J8kL3zX5cV',
    );
    up.refusedKeys.add('sk-cli-refused-key-000000');
    writeFileSync(keyFile, 'sk-cli-refused-key-000000');
    const refused = await runCliAsync(
      gw.dir,
      { BYOK_MASTER: NEW },
      'byok',
      'set',
      '--account',
      gw.accountId,
      '--provider',
      'acme-up',
      '--mode',
      'only',
      '--key-file',
      keyFile,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.err, /refused the key \(HTTP 401/);
    const removed = runCliWithEnv(
      gw.dir,
      { BYOK_MASTER: NEW },
      'byok',
      'remove',
      '--account',
      gw.accountId,
      '--provider',
      'acme-up',
      '--json',
    );
    assert.equal(removed.code, 0, removed.err);
    assert.equal(gw.db.prepare('SELECT count(*) AS n FROM byok_keys').get()!.n, 0);
  });
});

const skipPg = postgresUnavailable() ?? redisUnavailable() ?? false;

describe('BYOK on Postgres and Redis', { skip: skipPg }, () => {
  let up: OpenAIChatEmulator;
  let redis: RedisServer;
  let gw: TestGateway;
  let url: string;
  before(async () => {
    up = await startOpenAIChatEmulator();
    redis = await startRedis();
    url = await createTestDatabase();
    gw = await startTestGateway({
      yaml: yaml(up.baseUrl),
      credits: '0',
      env: { DATABASE_URL: url, REDIS_URL: redis.url, BYOK_MASTER: OLD },
    });
  });
  after(async () => {
    await gw?.close();
    await redis?.stop();
    await up?.close();
    await stopPostgres();
  });

  test('the account key reaches the upstream with $0 credits, the record says byok, and the table holds no key in clear', async () => {
    assert.equal(gw.services.stores.engine, 'postgres');
    const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    const put = await call('PUT', `${gw.origin}/api/v1/byok/acme-up`, mgmt, { key: ACCOUNT_KEY, mode: 'only', label: 'pg' });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/own', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      up.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => bearer(r as any)),
      [ACCOUNT_KEY],
    );
    await gw.flush();
    await gw.services.settled();
    const rec = (
      (await (await fetch(`${gw.baseUrl}/generation?id=${res.json.id}`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as any
    ).data;
    assert.equal(rec.byok, true);
    assert.equal(rec.total_cost, 0);
    const activity = await call('GET', `${gw.origin}/api/v1/activity`, mgmt);
    assert.equal(activity.json.data.find((r: any) => r.id === res.json.id).byok, true);
    const client = new pg.Client(url);
    await client.connect();
    try {
      const rows = (await client.query('SELECT * FROM byok_keys')).rows;
      assert.equal(rows.length, 1);
      assert.equal(JSON.stringify(rows).includes(ACCOUNT_KEY), false);
      assert.equal(JSON.stringify(rows).includes(ACCOUNT_KEY.slice(4, -4)), false);
      assert.equal(rows[0].last_four, ACCOUNT_KEY.slice(-4));
    } finally {
      await client.end();
    }
    const list = await call('GET', `${gw.origin}/api/v1/byok`, mgmt);
    assert.equal(JSON.stringify(list.json).includes(ACCOUNT_KEY), false);
  });
});
