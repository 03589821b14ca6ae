import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCliWithEnv } from '../support/run-cli.ts';
import { usdToNanos } from '../../src/money/money.ts';

// A gateway started with DATABASE_URL (Postgres from the harness) and REDIS_URL (a real
// redis-server) serves on the Postgres stores: an account and key made through the admin
// API, a chat completion through the simulated provider, its generation record found by id,
// and the account's ledger and usage showing its exact cost.

const skip = postgresUnavailable() ?? redisUnavailable() ?? false;

describe('a gateway on Postgres and Redis (DATABASE_URL, REDIS_URL)', { skip }, () => {
  let redis: RedisServer;
  let gw: TestGateway;
  let env: Record<string, string>;
  before(async () => {
    redis = await startRedis();
    env = { DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    gw = await startTestGateway({ env });
  });
  after(async () => {
    await gw?.close();
    await redis?.stop();
    await stopPostgres();
  });

  test('runs on the Postgres stores: admin API, a completion, its record by id, the exact cost in ledger and usage', async () => {
    assert.equal(gw.services.backends.kind, 'fleet');
    assert.equal(gw.services.stores.engine, 'postgres');
    const admin = await createAdminKey(gw);
    const api = `${gw.origin}/api/v1/admin`;
    const created = await call('POST', `${api}/accounts`, admin.key, {
      name: 'Fleet Co',
      type: 'organization',
      tier: 'tier2',
      credits: '2.5',
    });
    assert.equal(created.status, 201);
    const accountId: string = created.json.data.id;
    assert.equal(created.json.data.balance_usd, '2.5');
    const keyRes = await call('POST', `${api}/accounts/${accountId}/keys`, admin.key, { name: 'app' });
    assert.equal(keyRes.status, 201);
    const key: string = keyRes.json.key;

    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', max_tokens: 20, messages: [{ role: 'user', content: 'hello fleet' }] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(res.status, 200, res.text);
    const id = res.headers.get('x-generation-id')!;
    await gw.flush();
    await gw.services.settled();

    const lookup = await fetch(`${gw.origin}/api/v1/generation?id=${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(lookup.status, 200);
    const record = ((await lookup.json()) as { data: { id: string; model: string; tokens_completion: number } }).data;
    assert.equal(record.id, id);
    assert.equal(record.model, 'switchyard/sim-pro');
    assert.ok(record.tokens_completion > 0);

    const full = await call('GET', `${api}/generations/${encodeURIComponent(id)}`, admin.key);
    const cost: string = full.json.data.total_cost_usd;
    assert.notEqual(cost, '0', 'sim-pro is priced');
    const ledger = await call('GET', `${api}/accounts/${accountId}/ledger`, admin.key);
    assert.deepEqual(
      ledger.json.data.map((e: any) => [e.kind, e.amount_usd, e.generation_id]),
      [
        ['charge', `-${cost}`, id],
        ['credit', '2.5', null],
      ],
    );
    const usage = await call('GET', `${api}/usage?account=${accountId}&group_by=model`, admin.key);
    assert.deepEqual(
      usage.json.data.map((r: any) => [r.group, r.requests, r.cost_usd]),
      [['switchyard/sim-pro', 1, cost]],
    );
    assert.equal(usage.json.totals.cost_usd, cost);
    // The balance is the credits less that exact cost (nano-USD, no float).
    const account = await call('GET', `${api}/accounts/${accountId}`, admin.key);
    assert.equal(usdToNanos(account.json.data.balance_usd), usdToNanos('2.5') - usdToNanos(cost));
  });

  test('the dashboard signs in on Postgres sessions, and disabling the key ends its session', async () => {
    const admin = await createAdminKey(gw, 'ops-dash');
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dash', management: true });
    const signIn = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: mgmt.key }),
    });
    assert.equal(signIn.status, 200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const session = async () =>
      (await (await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie } })).json()) as { signed_in: boolean };
    assert.equal((await session()).signed_in, true);
    const usage = await fetch(`${gw.origin}/api/v1/usage`, { headers: { cookie } });
    assert.equal(usage.status, 200);
    assert.equal((await call('PATCH', `${gw.origin}/api/v1/admin/keys/${mgmt.record.hash}`, admin.key, { disabled: true })).status, 200);
    assert.equal((await session()).signed_in, false);
  });

  test('the CLI works on the same Postgres: credits added there show in the admin API', async () => {
    const admin = await createAdminKey(gw, 'ops-cli');
    const api = `${gw.origin}/api/v1/admin`;
    const added = runCliWithEnv(gw.dir, env, 'credits', 'add', '--account', gw.accountId, '--amount', '1.25', '--json');
    assert.equal(added.code, 0, added.err);
    const listed = runCliWithEnv(gw.dir, env, 'accounts', 'list', '--json');
    assert.equal(listed.code, 0, listed.err);
    const mine = (JSON.parse(listed.out) as Array<{ id: string; balance_usd: string }>).find((a) => a.id === gw.accountId)!;
    assert.equal(mine.balance_usd, JSON.parse(added.out).balance_usd);
    const shown = await call('GET', `${api}/accounts/${gw.accountId}`, admin.key);
    assert.equal(shown.json.data.balance_usd, mine.balance_usd);
    // `reload` finds a gateway through SQLite's serve lease: on Postgres it says what to do instead.
    const reload = runCliWithEnv(gw.dir, env, 'reload');
    assert.equal(reload.code, 1);
    assert.match(reload.err, /fleet on Postgres has none: send SIGHUP to each gateway instance/);
  });

  test('refusals on Postgres: counted per key and reason, no generation record, no row holding the model name', async () => {
    const admin = await createAdminKey(gw, 'refusals');
    const { key, record } = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'typos' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postJson(
          `${gw.baseUrl}/chat/completions`,
          { model: `acme/fleet-typo-zq${i}x`, messages: [{ role: 'user', content: 'x' }] },
          { authorization: `Bearer ${key}` },
        ),
      ),
    );
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [400]);
    await gw.flush();
    const counts = await call('GET', `${gw.origin}/api/v1/admin/refusals?key=${record.hash}`, admin.key);
    assert.equal(counts.status, 200);
    assert.deepEqual([...new Set(counts.json.data.map((c: { reason: string }) => c.reason))], ['model_not_found']);
    assert.equal(
      counts.json.data.reduce((n: number, c: { count: number }) => n + c.count, 0),
      12,
    );
    assert.deepEqual(await gw.services.stores.generations.ids({ keyHash: record.hash, limit: 100 }), []);
    const pg = (await import('pg')).default;
    const client = new pg.Client(env.DATABASE_URL);
    await client.connect();
    try {
      const tables = (
        await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()')
      ).rows.map((r) => r.table_name as string);
      for (const t of tables) {
        const text = JSON.stringify((await client.query(`SELECT * FROM "${t}"`)).rows);
        assert.doesNotMatch(text, /zq\d+x/, `table ${t} holds a client's string`);
      }
    } finally {
      await client.end();
    }
  });
});
