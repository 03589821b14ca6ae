import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

// The CSV export of Activity: the whole filtered range from the server (keyset pages of
// 1,000 read in turn), not the page on screen; cut at max_rows with a last line saying so.

const chat = { model: 'switchyard/sim-pro', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

function record(i: number, accountId: string, keyHash: string): SettlementRecord {
  // Pairs of records share a time: the keyset must break ties on the id.
  const at = new Date(Date.UTC(2025, 5, 1) + Math.floor(i / 2) * 1000).toISOString();
  return {
    id: `gen-seed-${String(i).padStart(5, '0')}`,
    accountId,
    keyHash,
    model: 'switchyard/sim-pro',
    provider: 'sim',
    upstreamModel: 'sim-pro',
    upstreamId: null,
    dialect: 'chat',
    streamed: false,
    cancelled: false,
    status: i % 10 === 0 ? 'error' : 'success',
    errorCode: i % 10 === 0 ? 'upstream_error' : null,
    finishReason: 'stop',
    nativeFinishReason: 'stop',
    tokensPrompt: 5,
    tokensCompletion: 7,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costNanos: 19_000n,
    costBreakdown: null,
    latencyMs: 12,
    firstTokenMs: 3,
    attempts: [],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt: at,
    holdRowWritten: false,
  };
}

function parse(text: string): { header: string[]; rows: string[][]; note: string | null } {
  const lines = text.split('\r\n').filter((l) => l !== '');
  const note = lines[lines.length - 1]!.startsWith('#') ? lines.pop()! : null;
  return { header: lines[0]!.split(','), rows: lines.slice(1).map((l) => l.split(',')), note };
}

describe('Activity CSV export', () => {
  let gw: TestGateway;
  let mgmt: string;
  let admin: string;
  const SEEDED = 2500;
  before(async () => {
    gw = await startTestGateway({ credits: '20' });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
    await gw.services.stores.ledger.settle(
      [],
      Array.from({ length: SEEDED }, (_, i) => record(i, gw.accountId, gw.keyHash)),
    );
  });
  after(() => gw.close());

  const get = (path: string, key: string) => fetch(`${gw.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

  test('covers the whole range over several server pages, newest first, each record once, exact costs', async () => {
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, {
      authorization: `Bearer ${gw.key}`,
      'x-title': '=HYPERLINK("x"), my app',
    });
    assert.equal(res.status, 200);
    await gw.flush();
    const csv = await get('/activity.csv', mgmt);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="activity-\d{4}-\d{2}-\d{2}\.csv"/);
    const text = await csv.text();
    const { header, rows, note } = parse(text.replace(/"[^"]*"/g, (q) => q.replaceAll(',', ';')));
    assert.equal(note, null, 'not cut');
    assert.equal(rows.length, SEEDED + 1);
    const id = header.indexOf('id');
    const ids = rows.map((r) => r[id]);
    assert.equal(new Set(ids).size, ids.length, 'no record twice across pages');
    assert.equal(ids[0], res.json.id, 'the newest first');
    assert.equal(ids[ids.length - 1], 'gen-seed-00000');
    assert.deepEqual(rows[1]!.slice(header.indexOf('cost_usd'), header.indexOf('cost_usd') + 1), ['0.000019']);
    // A client-chosen title that looks like a formula is quoted as text, commas and quotes kept.
    assert.ok(text.includes(`"'=HYPERLINK(""x""), my app"`), 'the title is neutralized and quoted');
  });

  test('takes the same filters as the list, and says where it was cut', async () => {
    const errors = parse(await (await get('/activity.csv?status=error&to=2025-06-02T00:00:00Z', mgmt)).text());
    assert.equal(errors.rows.length, SEEDED / 10);
    assert.ok(errors.rows.every((r) => r[errors.header.indexOf('status')] === 'error'));

    const cut = parse(await (await get('/activity.csv?max_rows=1500', mgmt)).text());
    assert.equal(cut.rows.length, 1500);
    assert.match(cut.note ?? '', /^# cut at 1500 rows/);

    assert.equal((await get('/activity.csv?max_rows=0', mgmt)).status, 400);
    assert.equal((await get('/activity.csv', gw.key)).status, 403, 'an API key is not a management key');
  });

  test('the admin export filters by account', async () => {
    const other = await gw.services.accountService.createAccount({ name: 'other', creditsUsd: '1' });
    const none = parse(await (await get(`/admin/generations.csv?account=${other.id}`, admin)).text());
    assert.equal(none.rows.length, 0);
    const mine = parse(await (await get(`/admin/generations.csv?account=${gw.accountId}&status=error`, admin)).text());
    assert.equal(mine.rows.length, SEEDED / 10);
    assert.equal((await get('/admin/generations.csv', mgmt)).status, 403);
  });
});
