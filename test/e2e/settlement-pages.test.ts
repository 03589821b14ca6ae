import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from '../../src/store/sqlite/open-database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { usdToNanos } from '../../src/money/money.ts';
import { call } from '../support/admin-client.ts';
import { PRICED_SIM, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// What a settlement writes (docs/benchmarks.md, "Seventh round: the writer's pages"): a new
// database takes 2,048-byte pages (open-database.ts), and a charge's ledger row no longer has a
// unique index of its generation id (migration 27; a charge is written only with its generation
// record, whose id is unique). Through a real gateway at one connection, with the checkpointer's
// timer an hour away so the WAL only grows: the WAL bytes each request adds, exactly.

const HOUR = 3_600_000;
const chat = { model: 'acme/paid-sim', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] };
/**
 * WAL bytes a request may add at one connection: its hold row's transaction and its settlement's
 * (~17 pages, one leaf of each b-tree they touch); the serve lease's renewals are set apart. On 4,096-byte
 * pages with the ledger's generation index it was ~71 KB (17.3 frames of 4,120 bytes).
 */
const WAL_BYTES_PER_REQUEST = 48_000;
/** What one renewal of the serve lease (an UPDATE of one row, every second) may add to the WAL (as test/e2e/wal-checkpointer.test.ts). */
const RENEWAL_FRAMES = 4;

/** The WAL's frame count, from the WAL index in the -shm file (its header's mxFrame, at byte 16). */
function walFrames(dbPath: string): number {
  const shm = readFileSync(`${dbPath}-shm`);
  return endianness() === 'LE' ? shm.readUInt32LE(16) : shm.readUInt32BE(16);
}

const ledgerIndexes = (db: DatabaseSync): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger' ORDER BY name").all() as Array<{ name: string }>
  ).map((r) => r.name);

/** `n` chat requests one after another, each answered 200. */
async function oneAtATime(gw: TestGateway, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${gw.key}` });
    assert.equal(res.status, 200, res.text);
  }
}

/** Each generation charged once, its cost; the account's charges in total (GET /credits) are their sum. */
async function assertChargedOnce(gw: TestGateway): Promise<void> {
  await gw.flush();
  const rows = gw.db
    .prepare(
      `SELECT g.id, g.cost_nanos AS cost, (SELECT count(*) FROM ledger l WHERE l.generation_id = g.id) AS charges,
        (SELECT -sum(amount_nanos) FROM ledger l WHERE l.generation_id = g.id) AS charged FROM generations g`,
    )
    .all() as Array<{ id: string; cost: number; charges: number; charged: number }>;
  assert.ok(rows.length > 0);
  for (const r of rows) {
    assert.ok(r.cost > 0, `${r.id} has a cost`);
    assert.deepEqual({ charges: r.charges, charged: r.charged }, { charges: 1, charged: r.cost }, r.id);
  }
  const credits = await call('GET', `${gw.origin}/api/v1/credits`, gw.key);
  assert.equal(credits.status, 200);
  assert.equal(
    usdToNanos(String(credits.json.data.total_usage)),
    rows.reduce((n, r) => n + BigInt(r.cost), 0n),
  );
}

describe('the settlement’s pages', () => {
  describe('a new database', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ yaml: PRICED_SIM, credits: '1000', writer: { checkpointMs: HOUR, walLimitBytes: 1024 ** 3 } });
    });
    after(async () => gw.close());

    test('has 2,048-byte pages and no ledger index of generation ids; a request at one connection adds under 48 KB to the WAL', async () => {
      assert.equal((gw.db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size, 2048);
      assert.deepEqual(ledgerIndexes(gw.db), ['ledger_account']);
      const dbPath = gw.services.inForce.config.database.path;
      await oneAtATime(gw, 5); // every table has its first pages
      await gw.flush();
      const before = walFrames(dbPath);
      const t0 = performance.now();
      const n = 40;
      await oneAtATime(gw, n);
      await gw.flush();
      // The serve lease's renewals (one a second, on the same writer) are not the requests': a loaded machine may take several seconds.
      const renewals = Math.ceil((performance.now() - t0) / 1000) + 1;
      const frames = walFrames(dbPath) - before - renewals * RENEWAL_FRAMES;
      const perRequest = (frames * (2048 + 24)) / n;
      assert.ok(perRequest < WAL_BYTES_PER_REQUEST, `${Math.round(perRequest)} WAL bytes a request (${renewals} renewals allowed for)`);
      await assertChargedOnce(gw);
    });
  });

  describe('a database made before migration 27', () => {
    let gw: TestGateway;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'switchyard-test-'));
      const old = new DatabaseSync(join(dir, 'switchyard.db'));
      old.exec('PRAGMA journal_mode = WAL');
      migrate(
        old,
        MIGRATIONS.filter((m) => m.version < 27),
      );
      assert.deepEqual(ledgerIndexes(old), ['ledger_account', 'ledger_generation']);
      old.close();
      gw = await startTestGateway({ yaml: PRICED_SIM, credits: '1000', dir });
    });
    after(async () => {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('keeps its page size, loses the ledger’s generation index, and charges each request once', async () => {
      assert.equal((gw.db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size, 4096);
      assert.deepEqual(ledgerIndexes(gw.db), ['ledger_account']);
      await oneAtATime(gw, 5);
      await assertChargedOnce(gw);
    });
  });
});
