import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { startPgProxy, type PgProxy } from '../support/pg-proxy.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A fleet gateway (Postgres + Redis) whose pool reaches Postgres through a loopback proxy
// that cuts connections at chosen moments (test/support/pg-proxy.ts): a settlement batch
// whose COMMIT went through but whose answer was lost, and Postgres unreachable while a
// batch is written. Every answer's charge is in the ledger exactly once, and the gateway
// serves again by itself. The strict hold promise (`timeouts.hold_journal_ms: 0`): each
// request's hold row commits before its upstream call, which the last two tests rely on (a
// hold row's own commit as the moment Postgres goes; a hold row that cannot be written).

const skip = postgresUnavailable() ?? redisUnavailable() ?? false;

describe('a fleet gateway whose connection to Postgres is cut around a settlement', { skip }, () => {
  let redis: RedisServer;
  let proxy: PgProxy;
  let db: pg.Pool;
  let gw: TestGateway;
  const logs: string[] = [];
  before(async () => {
    redis = await startRedis();
    const databaseUrl = await createTestDatabase();
    proxy = await startPgProxy(databaseUrl);
    gw = await startTestGateway({
      env: { DATABASE_URL: proxy.url, REDIS_URL: redis.url },
      log: (m) => logs.push(m),
      tweak: (c) => (c.timeouts.holdJournalMs = 0),
    });
    db = createPostgresPool({ url: databaseUrl, max: 2 });
  });
  after(async () => {
    await gw?.close();
    await db?.end();
    await proxy?.close();
    await redis?.stop();
    await stopPostgres();
  });

  const chat = () =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] },
      { authorization: `Bearer ${gw.key}` },
    );
  const balance = async () =>
    BigInt((await db.query('SELECT balance_nanos FROM accounts WHERE id = $1', [gw.accountId])).rows[0].balance_nanos);
  const usage = async () => BigInt((await db.query('SELECT usage_nanos FROM api_keys WHERE hash = $1', [gw.keyHash])).rows[0].usage_nanos);
  const charges = async (id: string) =>
    (await db.query(`SELECT amount_nanos FROM ledger WHERE generation_id = $1`, [id])).rows.map((r) => BigInt(r.amount_nanos));
  const cost = async (id: string) => BigInt((await db.query('SELECT cost_nanos FROM generations WHERE id = $1', [id])).rows[0].cost_nanos);
  const requests = async () =>
    (await db.query('SELECT coalesce(sum(requests), 0) AS n FROM usage_daily WHERE account_id = $1', [gw.accountId])).rows[0].n as string;

  test('a batch whose COMMIT answer is lost: the answer is delivered, charged once (ledger, balance, key usage, rollups), and later requests are served', async () => {
    assert.equal((await chat()).status, 200); // the key's credit snapshot loaded, the pool warm
    await gw.flush();
    const [balanceBefore, usageBefore, requestsBefore] = [await balance(), await usage(), Number(await requests())];
    const lost = proxy.loseNextSettlementCommit();
    const res = await chat();
    await lost; // the batch committed and its connection was cut before the answer
    assert.equal(res.status, 200, res.text);
    const id = res.headers.get('x-generation-id')!;
    await gw.flush();
    const charged = await cost(id);
    assert.ok(charged > 0n, 'sim-pro is priced');
    assert.deepEqual(await charges(id), [-charged], 'one charge row');
    assert.equal(await balance(), balanceBefore - charged, 'the balance moved once');
    assert.equal(await usage(), usageBefore + charged, 'the key usage moved once');
    assert.equal(Number(await requests()), requestsBefore + 1, 'the rollups counted it once');
    assert.equal(gw.services.settlements.failing, false);
    assert.equal(gw.services.settlements.queued, 0, 'nothing left to retry');
    assert.ok(!logs.some((l) => /dropped/.test(l)), logs.join('\n'));
    const later = await chat();
    assert.equal(later.status, 200, later.text);
    await gw.flush();
    assert.equal((await charges(later.headers.get('x-generation-id')!)).length, 1);
  });

  test('Postgres unreachable while a batch is written: the answer fails closed (503), its charge is kept and written once Postgres is back, and the gateway serves again', async () => {
    assert.equal((await chat()).status, 200); // the key and its credit snapshot cached: admission needs no Postgres
    await gw.flush();
    const balanceBefore = await balance();
    // Postgres goes once the request's hold row is written (no upstream call before it: issue 23 §7).
    const gone = proxy.refuseAfterNextHoldCommit();
    const res = await chat();
    await gone;
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.error.code, 'storage_unavailable');
    const id = res.headers.get('x-generation-id');
    assert.ok(id !== null, 'the refused answer still names its generation');
    assert.equal(gw.services.settlements.failing, true);
    assert.equal(gw.services.settlements.queued, 1, 'its settlement kept in memory, not dropped');
    proxy.refuse(false);
    while (!(await gw.services.settlements.retry()));
    const charged = await cost(id);
    assert.ok(charged > 0n, 'the upstream was paid: charged');
    assert.deepEqual(await charges(id), [-charged]);
    assert.equal(await balance(), balanceBefore - charged);
    assert.ok(!logs.some((l) => /dropped/.test(l)), logs.join('\n'));
    assert.equal((await chat()).status, 200);
  });

  test('Postgres unreachable when a hold row is to be written: 503 before any upstream call, nothing charged, and the gateway serves again', async () => {
    assert.equal((await chat()).status, 200);
    await gw.flush();
    const balanceBefore = await balance();
    proxy.refuse(true);
    const res = await chat();
    assert.equal(res.status, 503, res.text);
    // The hold row's write fails (storage_unavailable); on a loaded machine the key's cached
    // authentication (2 s) may have lapsed since the last request, and reading it fails first
    // (shared_state_unavailable): refused before any upstream call either way.
    assert.ok(['storage_unavailable', 'shared_state_unavailable'].includes(res.json.error.code), res.text);
    assert.equal(gw.services.reservations.outstanding, 0, 'its hold released');
    proxy.refuse(false);
    while (!(await gw.services.settlements.retry()));
    // Refused at admission: no generation record (it is counted), and no charge.
    assert.equal(
      (await db.query('SELECT count(*)::int AS n FROM generations WHERE id = $1', [res.headers.get('x-generation-id')])).rows[0].n,
      0,
    );
    assert.deepEqual(await charges(res.headers.get('x-generation-id')!), [], 'refused: nothing charged');
    assert.equal(await balance(), balanceBefore);
    assert.equal((await chat()).status, 200);
  });
});
