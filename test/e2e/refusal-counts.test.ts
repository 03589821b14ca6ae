import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allPages, call, createAdminKey } from '../support/admin-client.ts';
import { scrape, sumOf } from '../support/prometheus-text.ts';

// Refused requests (rate limits, unknown models...) cost the operator a counter, not a
// generation record each (store/sqlite/refusal-counts.ts): a flood of them does not grow the
// generation table, and the strings a client chose (unknown model names, titles) are
// stored nowhere.

const TIERS = `
tiers:
  free:
    requests_per_minute: 5
    requests_per_day: 1000
`;

const ask = (model = 'switchyard/sim-fast') => ({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('refusals are counted, not stored', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    gw = await startTestGateway({ yaml: SIM_ONLY + TIERS });
    admin = (await createAdminKey(gw)).key;
  });
  after(() => gw.close());

  const generationRows = async (keyHash: string): Promise<number> =>
    (await gw.services.stores.generations.ids({ keyHash, limit: 100_000 })).length;

  test('a free-tier key far beyond its rate limit: the generation table does not grow per refusal, the count per key and reason is exact', async () => {
    const a = await gw.services.accountService.createAccount({ name: 'free flood', tier: 'free', creditsUsd: '1' });
    const { key, record } = await gw.services.accountService.createKey({ accountId: a.id });
    const auth = { authorization: `Bearer ${key}`, 'x-title': 'flood app' };
    const statuses: number[] = [];
    // 300 requests, 10 at a time.
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => postJson(`${gw.baseUrl}/chat/completions`, ask(), auth)));
      statuses.push(...answers.map((r) => r.status));
    }
    const served = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    assert.equal(served + refused, 300, `only 200s and 429s: ${[...new Set(statuses)].join(', ')}`);
    assert.ok(served >= 5 && served <= 10, `served ${served} (5 a minute; the test may cross one minute boundary)`);
    await gw.flush();
    assert.equal(await generationRows(record.hash), served, 'one generation record per served request, none per refusal');
    const counts = await allPages(`${gw.baseUrl.replace('/v1', '/api/v1')}/admin/refusals?key=${record.hash}&limit=1`, admin);
    assert.ok(counts.every((c) => c.key_hash === record.hash && c.account_id === a.id && c.reason === 'rate_limited'));
    assert.ok(counts.length <= 2, `one row per minute: ${counts.length}`);
    assert.equal(
      counts.reduce((n, c) => n + c.count, 0),
      refused,
      'the refusals counted are the refusals answered',
    );
    // The account filter finds the same rows; another account's filter none of them.
    const ofAccount = await call('GET', `${gw.origin}/api/v1/admin/refusals?account=${a.id}`, admin);
    assert.equal(ofAccount.status, 200);
    assert.deepEqual(ofAccount.json.data, counts);
    const ofOther = await call('GET', `${gw.origin}/api/v1/admin/refusals?account=${gw.accountId}&key=${record.hash}`, admin);
    assert.deepEqual(ofOther.json.data, []);
  });

  test('requests naming distinct unknown models leave those names in no table of the database', async () => {
    const { key, record } = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'typos' });
    const names = Array.from({ length: 40 }, (_, i) => `acme/no-such-model-zq${i}x`);
    const titles = names.map((_, i) => `title-zq${i}x`);
    const answers = await Promise.all(
      names.map((m, i) =>
        postJson(`${gw.baseUrl}/chat/completions`, ask(m), {
          authorization: `Bearer ${key}`,
          'x-title': titles[i]!,
          'http-referer': `https://referer-zq${i}x.test`,
        }),
      ),
    );
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [400]);
    assert.equal(answers[0]!.json.error.code, 'model_not_found');
    await gw.flush();
    assert.equal(await generationRows(record.hash), 0);
    // Every text cell of every table: none holds a client's string.
    const db = gw.db;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
    assert.ok(
      tables.includes('refusal_counts') &&
        tables.includes('generation_records') &&
        tables.includes('record_names') &&
        tables.includes('usage_daily'),
    );
    for (const table of tables) {
      const text = JSON.stringify(db.prepare(`SELECT * FROM "${table}"`).all());
      assert.doesNotMatch(text, /zq\d+x/, `table ${table} holds a client's string`);
    }
    const counts = await call('GET', `${gw.origin}/api/v1/admin/refusals?key=${record.hash}`, admin);
    assert.equal(
      counts.json.data.reduce((n: number, c: { count: number }) => n + c.count, 0),
      names.length,
    );
    assert.deepEqual([...new Set(counts.json.data.map((c: { reason: string }) => c.reason))], ['model_not_found']);
    // Metrics count them by reason (an error code, never the model's name).
    const metrics = await scrape(gw.origin);
    assert.ok(sumOf(metrics, 'switchyard_admission_refusals_total', { reason: 'model_not_found' }) >= names.length);
    assert.ok(!metrics.some((s) => JSON.stringify(s).includes('no-such-model')), 'no client string as a label');
  });

  test('the refusals route is for admin keys, pages with a cursor, and refuses a bad cursor, limit or time', async () => {
    assert.equal((await call('GET', `${gw.origin}/api/v1/admin/refusals`, gw.key)).status, 403);
    assert.equal((await call('GET', `${gw.origin}/api/v1/admin/refusals`, null)).status, 401);
    for (const q of ['cursor=nope', 'limit=201', 'limit=0', 'from=yesterday']) {
      const r = await call('GET', `${gw.origin}/api/v1/admin/refusals?${q}`, admin);
      assert.equal(r.status, 400, q);
    }
    const missing = await call('GET', `${gw.origin}/api/v1/admin/refusals?account=acct_missing`, admin);
    assert.equal(missing.status, 404);
    const future = await call('GET', `${gw.origin}/api/v1/admin/refusals?from=2999-01-01T00:00:00Z`, admin);
    assert.deepEqual(future.json, { data: [], next_cursor: null });
  });
});
