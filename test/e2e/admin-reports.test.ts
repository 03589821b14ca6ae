import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatNanos } from '../../src/money/money.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allPages, call, createAdminKey } from '../support/admin-client.ts';

const say = (model: string, content: string, stream = false) => ({ model, stream, messages: [{ role: 'user', content }] });

describe('usage rollups, activity and ledger reports', () => {
  let gw: TestGateway;
  let admin: string;
  let other: { accountId: string; key: string; mgmt: string };
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    admin = (await createAdminKey(gw)).key;
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    const acct = await gw.services.accountService.createAccount({ name: 'other', tier: 'tier2', creditsUsd: '0.000001' });
    other = {
      accountId: acct.id,
      key: (await gw.services.accountService.createKey({ accountId: acct.id, name: 'k' })).key,
      mgmt: (await gw.services.accountService.createKey({ accountId: acct.id, name: 'm', management: true })).key,
    };
  });
  after(() => gw.close());

  const send = (key: string, body: unknown, title?: string) =>
    postJson(`${gw.baseUrl}/chat/completions`, body, {
      authorization: `Bearer ${key}`,
      ...(title === undefined ? {} : { 'x-title': title }),
    });

  test('rollups equal the sums over the raw generation records after a mix of requests (streamed, errors, refusals)', async () => {
    const statuses = [];
    statuses.push((await send(gw.key, say('switchyard/sim-pro', 'one'), 'App A')).status);
    statuses.push((await send(gw.key, say('switchyard/sim-pro', 'two', true), 'App A')).status);
    statuses.push((await send(gw.key, say('switchyard/sim-reasoner', 'three', true), 'App B')).status);
    statuses.push((await send(gw.key, say('switchyard/sim-fast', 'four'))).status);
    statuses.push((await send(gw.key, say('switchyard/sim-pro', 'fail [sim:error]'), 'App A')).status);
    statuses.push((await send(gw.key, say('switchyard/sim-pro', 'a long answer that breaks [sim:error-midstream]', true), 'App B')).status);
    statuses.push((await send(other.key, say('switchyard/sim-reasoner', 'too poor '.repeat(200)))).status); // 402 refusal
    statuses.push((await send(gw.key, say('nobody/nothing', 'unknown model'))).status);
    assert.ok(statuses.includes(402) && statuses.includes(502) && statuses.filter((s) => s === 200).length >= 4, String(statuses));
    await gw.flush();

    const db = gw.db;
    const raw = db
      .prepare(
        `SELECT substr(created_at, 1, 10) AS day, account_id, key_hash, coalesce(model, '') AS model,
        coalesce(provider, '') AS provider, coalesce(x_title, '') AS app_title, count(*) AS requests, sum(status = 'error') AS errors,
        sum(tokens_prompt) AS tokens_prompt, sum(tokens_completion) AS tokens_completion, sum(tokens_cache_read) AS tokens_cache_read,
        sum(tokens_cache_write) AS tokens_cache_write, sum(tokens_reasoning) AS tokens_reasoning, sum(cost_nanos) AS cost_nanos,
        coalesce(sum(latency_ms), 0) AS latency_ms_sum, count(latency_ms) AS latency_count
      FROM generations GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      )
      .all();
    const rolled = db.prepare('SELECT * FROM usage_daily ORDER BY day, account_id, key_hash, model, provider, app_title').all();
    assert.ok(raw.length >= 5);
    assert.deepEqual(rolled, raw);
    // The coarser all-accounts tables hold the same sums.
    const figures = `sum(requests) AS requests, sum(errors) AS errors, sum(tokens_prompt) AS tokens_prompt, sum(tokens_completion) AS tokens_completion,
      sum(tokens_cache_read) AS cr, sum(tokens_cache_write) AS cw, sum(tokens_reasoning) AS tr, sum(cost_nanos) AS cost,
      sum(latency_ms_sum) AS lat, sum(latency_count) AS latn`;
    for (const [table, dims] of [
      ['usage_daily_global', 'day, model, provider, app_title'],
      ['usage_daily_keys', 'day, account_id, key_hash'],
    ]) {
      const fine = db.prepare(`SELECT ${dims}, ${figures} FROM usage_daily GROUP BY ${dims} ORDER BY ${dims}`).all();
      const coarse = db.prepare(`SELECT ${dims}, ${figures} FROM ${table} GROUP BY ${dims} ORDER BY ${dims}`).all();
      assert.deepEqual(coarse, fine, table);
    }
    assert.ok(raw.some((r) => Number(r.errors) > 0) && raw.some((r) => Number(r.cost_nanos) > 0));

    // The API's totals are those sums, exactly.
    const all = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=model`, admin);
    const sumCost = raw.reduce((s, r) => s + BigInt(r.cost_nanos as number), 0n);
    const sumReq = raw.reduce((s, r) => s + Number(r.requests), 0);
    assert.equal(all.json.totals.requests, sumReq);
    assert.equal(all.json.totals.cost_usd, formatNanos(sumCost));
    const byApp = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=app&account=${gw.accountId}`, admin);
    assert.deepEqual(byApp.json.data.map((r: any) => r.group).sort(), ['App A', 'App B', null].sort());
    for (const group of ['day', 'provider', 'key', 'account']) {
      const res = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=${group}`, admin);
      assert.equal(res.status, 200);
      assert.equal(
        res.json.data.reduce((s: number, r: any) => s + r.requests, 0),
        sumReq,
        group,
      );
    }
    assert.equal((await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=colour`, admin)).status, 400);
    assert.equal((await call('GET', `${gw.origin}/api/v1/admin/usage?from=2026-02-30`, admin)).status, 400);
  });

  test('a management key sees its own account only: usage, activity, ledger', async () => {
    await send(gw.key, say('switchyard/sim-pro', 'mine'));
    await send(other.key, say('switchyard/sim-fast', 'theirs'));
    await gw.flush();
    const usage = await call('GET', `${gw.origin}/api/v1/usage?group_by=key`, other.mgmt);
    assert.equal(usage.status, 200);
    const otherKeys = new Set((await gw.services.stores.accounts.listKeys(other.accountId)).map((k) => k.hash));
    assert.ok(usage.json.data.length > 0 && usage.json.data.every((r: any) => otherKeys.has(r.group)));
    assert.equal(typeof usage.json.balance_usd, 'string');
    assert.equal((await call('GET', `${gw.origin}/api/v1/usage?group_by=account`, other.mgmt)).status, 400);

    const activity = await allPages(`${gw.origin}/api/v1/activity?limit=3`, other.mgmt);
    assert.ok(activity.length > 0 && activity.every((g) => g.account_id === other.accountId));
    assert.equal((await call('GET', `${gw.origin}/api/v1/activity?key=${gw.keyHash}`, other.mgmt)).status, 404);
    const ledger = await allPages(`${gw.origin}/api/v1/ledger`, other.mgmt);
    assert.ok(ledger.length > 0 && ledger.every((e) => e.account_id === other.accountId));
    // An ordinary key gets none of it.
    for (const path of ['usage', 'activity', 'ledger'])
      assert.equal((await call('GET', `${gw.origin}/api/v1/${path}`, other.key)).status, 403);
    const mine = await allPages(`${gw.origin}/api/v1/activity?status=success&model=switchyard/sim-pro`, mgmt);
    assert.ok(
      mine.length > 0 && mine.every((g) => g.account_id === gw.accountId && g.status === 'success' && g.model === 'switchyard/sim-pro'),
    );
  });

  test('keyset pagination returns every record exactly once across pages while new records are added', async () => {
    for (let i = 0; i < 12; i++) await send(gw.key, say('switchyard/sim-fast', `page ${i}`));
    await gw.flush();
    const before = (await allPages(`${gw.origin}/api/v1/admin/generations?limit=200&account=${gw.accountId}`, admin)).map((g) => g.id);
    let added = 0;
    const addOne = async () => {
      await send(gw.key, say('switchyard/sim-fast', `new ${added++}`));
      await gw.flush();
    };
    for (const url of [`${gw.origin}/api/v1/admin/generations?limit=4&account=${gw.accountId}`, `${gw.origin}/api/v1/activity?limit=4`]) {
      const key = url.includes('/admin/') ? admin : mgmt;
      const seen = (await allPages(url, key, addOne)).map((g) => g.id);
      assert.equal(new Set(seen).size, seen.length, 'no record twice');
      for (const id of before) assert.ok(seen.includes(id), `record ${id} on a page`);
    }
    assert.ok(added > 4);
    const bad = await call('GET', `${gw.origin}/api/v1/admin/generations?cursor=bm9wZQ`, admin);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'invalid_parameter');
  });
});
