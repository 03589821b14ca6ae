import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

// Exports of generation records before they are pruned: GET /admin/generations/export
// (CSV or JSON lines, streamed in keyset pages) and `switchyard generations export`.

const SEEDED = 2600; // over five of the export's pages of 500
const START = Date.UTC(2026, 0, 1);
const TRICKY = ['comma, inside', 'quote " inside', 'line\nbreak', '=SUM(A1:A9)', '-2+3', 'plain'];

function record(i: number, accountId: string, keyHash: string): SettlementRecord {
  return {
    id: `gen-x-${String(i).padStart(5, '0')}`,
    accountId,
    keyHash,
    model: 'switchyard/sim-pro',
    provider: 'sim',
    upstreamModel: 'sim-pro',
    upstreamId: `up-${i}`,
    dialect: 'chat',
    streamed: i % 2 === 0,
    cancelled: false,
    status: i % 13 === 0 ? 'error' : 'success',
    errorCode: i % 13 === 0 ? 'upstream_error' : null,
    finishReason: 'stop',
    nativeFinishReason: 'stop',
    tokensPrompt: 5,
    tokensCompletion: 7,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costNanos: 19_000n + BigInt(i),
    costBreakdown: { prompt: '0.000005', completion: `0.000014${i}`, cache_read: '0', cache_write: '0', request: '0', image: '0' },
    latencyMs: 12,
    firstTokenMs: 3,
    attempts:
      i % 7 === 0
        ? [
            {
              model: 'switchyard/sim-pro',
              provider: 'other',
              endpoint: 'other-main',
              status: 503,
              errorCode: 'upstream_unavailable',
              ms: 4,
            },
            { model: 'switchyard/sim-pro', provider: 'sim', endpoint: 'sim', status: 200, errorCode: null, ms: 8 },
          ]
        : [{ model: 'switchyard/sim-pro', provider: 'sim', endpoint: 'sim', status: 200, errorCode: null, ms: 8 }],
    httpReferer: null,
    xTitle: TRICKY[i % TRICKY.length]!,
    endUser: i % 5 === 0 ? `user-${i}` : null,
    createdAt: new Date(START + i * 60_000).toISOString(),
    holdRowWritten: false,
  };
}

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('generation records export', () => {
  let gw: TestGateway;
  let admin: string;
  let mgmt: string;
  let other: { id: string; keyHash: string };

  before(async () => {
    gw = await startTestGateway({ credits: '20' });
    admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    const a = await gw.services.accountService.createAccount({ name: 'other', tier: 'tier2', creditsUsd: '5' });
    other = { id: a.id, keyHash: (await gw.services.accountService.createKey({ accountId: a.id, name: 'k' })).record.hash };
    await gw.services.stores.ledger.settle(
      [],
      Array.from({ length: SEEDED }, (_, i) => record(i, gw.accountId, gw.keyHash)),
    );
    await gw.services.stores.ledger.settle(
      [],
      Array.from({ length: 10 }, (_, i) => ({ ...record(SEEDED + i, other.id, other.keyHash), id: `gen-o-${i}` })),
    );
  });
  after(() => gw.close());

  const exportUrl = (query: string) => `${gw.origin}/api/v1/admin/generations/export?${query}`;
  const get = (query: string, key: string | null = admin) =>
    fetch(exportUrl(query), { headers: key === null ? {} : { authorization: `Bearer ${key}` } });

  test('admin keys only: 401 without a key, 403 for a management or API key; a bad format or filter is a 400', async () => {
    assert.equal((await get('format=csv', null)).status, 401);
    assert.equal((await get('format=csv', mgmt)).status, 403);
    assert.equal((await get('format=jsonl', gw.key)).status, 403);
    for (const q of ['format=xml', 'format=csv&from=yesterday', 'format=csv&status=maybe', 'format=csv&colour=red']) {
      const r = await get(q);
      assert.equal(r.status, 400, q);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'invalid_parameter', q);
    }
  });

  test('CSV: every record of the range over several pages, newest first, escaped (RFC 4180, formulas defused), streamed', async () => {
    const live = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(live.status, 200);
    await gw.flush();
    const res = await get(`format=csv&account=${gw.accountId}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.headers.get('content-length'), null, 'streamed, not built whole');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="generations-\d{4}-\d{2}-\d{2}\.csv"/);
    const [header, ...rows] = parseCsv(await res.text());
    const col = (name: string) => header!.indexOf(name);
    assert.equal(rows.length, SEEDED + 1);
    assert.equal(rows[0]![col('id')], live.headers.get('x-generation-id'), 'the newest first');
    assert.equal(rows.at(-1)![col('id')], 'gen-x-00000');
    assert.equal(new Set(rows.map((r) => r[col('id')])).size, rows.length, 'each record once across pages');
    const byId = new Map(rows.map((r) => [r[col('id')], r]));
    for (let i = 0; i < TRICKY.length; i++) {
      const title = byId.get(`gen-x-0000${i}`)![col('app_title')];
      assert.equal(title, /^[=+\-@]/.test(TRICKY[i]!) ? `'${TRICKY[i]}` : TRICKY[i], `title ${i}`);
    }
    assert.equal(byId.get('gen-x-00007')![col('attempts')], '2');
    assert.equal(byId.get('gen-x-00042')![col('cost_usd')], '0.000019042');
  });

  test('JSON lines: one whole record per line, as GET /admin/generations/:id; from/to and account filter', async () => {
    const res = await get(
      `format=jsonl&from=${new Date(START + 100 * 60_000).toISOString()}&to=${new Date(START + 1300 * 60_000).toISOString()}`,
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 1200);
    assert.equal(lines[0].id, 'gen-x-01299');
    assert.equal(lines.at(-1).id, 'gen-x-00100');
    for (const id of ['gen-x-00700', 'gen-x-00105']) {
      const one = await call('GET', `${gw.origin}/api/v1/admin/generations/${id}`, admin);
      assert.deepEqual(
        lines.find((l) => l.id === id),
        one.json.data,
        id,
      );
    }
    const seven = lines.find((l) => l.id === 'gen-x-00700');
    assert.equal(seven.attempts.length, 2);
    assert.equal(seven.cost_breakdown.completion, '0.000014700');
    const others = (await (await get(`format=jsonl&account=${other.id}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(others.map((l) => l.id).sort(), Array.from({ length: 10 }, (_, i) => `gen-o-${i}`).sort());
    assert.equal(await (await get('format=jsonl&account=acct_nobody')).text(), '');
  });

  test('switchyard generations export writes the same records, CSV or JSON lines, to a file or stdout', async () => {
    const file = join(gw.dir, 'out.jsonl');
    const r = runCli(gw.dir, 'generations', 'export', '--format', 'jsonl', '--account', other.id, '--out', file);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /written to/);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const api = (await (await get(`format=jsonl&account=${other.id}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines, api);
    const csv = runCli(gw.dir, 'generations', 'export', '--until', new Date(START + 3 * 60_000).toISOString());
    assert.equal(csv.code, 0, csv.err);
    const rows = parseCsv(csv.out);
    assert.deepEqual(
      rows.slice(1).map((row) => row[1]),
      ['gen-x-00002', 'gen-x-00001', 'gen-x-00000'],
    );
    const bad = runCli(gw.dir, 'generations', 'export', '--format', 'xml');
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /xml/);
  });
});
