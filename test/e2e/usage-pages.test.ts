import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, PRICED_SIM, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey } from '../support/admin-client.ts';

// GET /admin/usage and GET /usage answer in keyset pages of groups (an app title is a
// client's string: its groups are as many as the titles sent), with the range's totals on
// every page.

const TITLES = 60;

describe('usage aggregates are paged', () => {
  let gw: TestGateway;
  let admin: string;
  let manager: string;
  before(async () => {
    gw = await startTestGateway({ yaml: PRICED_SIM, credits: '100' });
    admin = (await createAdminKey(gw)).key;
    manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    // One app title per request, prompts of different lengths: groups of different costs.
    for (let i = 0; i < TITLES; i++) {
      const r = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/paid-sim', messages: [{ role: 'user', content: 'word '.repeat(1 + (i % 7)) }] },
        { authorization: `Bearer ${gw.key}`, 'x-title': `app-${String(i).padStart(2, '0')}` },
      );
      assert.equal(r.status, 200, r.text);
    }
    await gw.flush();
  });
  after(() => gw.close());

  async function walk(path: string, key: string): Promise<{ rows: any[]; totals: unknown[]; pages: number }> {
    const rows: any[] = [];
    const totals: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call('GET', `${gw.origin}${path}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, key);
      assert.equal(res.status, 200, JSON.stringify(res.json));
      rows.push(...res.json.data);
      totals.push(res.json.totals);
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor !== null);
    return { rows, totals, pages };
  }

  for (const [name, path, key] of [
    ['GET /admin/usage', '/api/v1/admin/usage', () => admin],
    ['GET /usage', '/api/v1/usage', () => manager],
  ] as const) {
    test(`${name}: by app in pages of 7, every title once, highest cost first, the same totals on every page`, async () => {
      const { rows, totals, pages } = await walk(`${path}?group_by=app&limit=7`, key());
      assert.equal(pages, Math.ceil(TITLES / 7));
      assert.deepEqual(
        rows.map((r) => r.group).sort(),
        Array.from({ length: TITLES }, (_, i) => `app-${String(i).padStart(2, '0')}`),
      );
      for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].cost >= rows[i].cost, `cost order at ${i}`);
      assert.ok(
        totals.every((t) => JSON.stringify(t) === JSON.stringify(totals[0])),
        "the totals are the range's, whatever the page",
      );
      const t = totals[0] as { requests: number; cost_usd: string };
      assert.equal(
        t.requests,
        rows.reduce((n, r) => n + r.requests, 0),
      );
      const nanos = (usd: string): bigint =>
        BigInt(usd.replace('.', '').replace(/^0+(?=\d)/, '')) * 10n ** BigInt(9 - (usd.split('.')[1]?.length ?? 0));
      assert.equal(
        nanos(t.cost_usd),
        rows.reduce((n, r) => n + nanos(r.cost_usd), 0n),
        "the pages' costs add up to the total exactly",
      );
    });
  }

  test('a default page holds 50 groups; by day the cursor follows the days; bad paging is a 400', async () => {
    const first = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=app`, admin);
    assert.equal(first.json.data.length, 50);
    assert.ok(first.json.next_cursor !== null);
    const days = await walk('/api/v1/admin/usage?group_by=day&limit=1&from=2020-01-01&to=2020-12-31', admin);
    assert.deepEqual(days.rows, []);
    const today = await walk('/api/v1/usage?group_by=day&limit=1', manager);
    assert.equal(today.rows.length, 1);
    for (const q of ['limit=201', 'limit=0', 'cursor=nope']) {
      const r = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=app&${q}`, admin);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.error.code, 'invalid_parameter', q);
    }
    // A by-cost cursor is not a by-day cursor.
    const wrongKind = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=day&cursor=${first.json.next_cursor}`, admin);
    assert.equal(wrongKind.status, 400);
  });
});
