// node bench/settlement-pages.ts [--src DIR] [--prefill N] [--records N] [--runs N] [--drop INDEX,...]
//
// What one settlement writes (docs/benchmarks.md, "Seventh round: the writer's pages"): the
// real LedgerStore.settle on a WAL-mode file configured as the writer thread configures its
// connection (configureConnection, no automatic checkpoint), with the bench gateway's records
// (one account and key, acme/mock-1 on provider local, random gen- ids as the pipeline makes
// them), at one connection's shape (a transaction for the hold row, then one for the
// settlement) in batches of 1 and 8. The database is first filled with --prefill records and
// checkpointed, so the indexes are as deep and their keys as scattered as a serving gateway's.
//
// Prints per record, for the settlement's transactions alone and with the hold rows' too:
// WAL bytes (exact: the -wal file's growth, no checkpoint runs inside a measured window),
// WAL frames, write system calls of this thread (/proc/thread-self/io), CPU µs (this thread).
// --src points at another checkout's src/ (before/after); --drop drops indexes after the fill
// (to price each one: an experiment, not a schema); --page-size makes the file with that page size.
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { newGenerationId } from '../src/pipeline/generation-id.ts';

const { values: flags } = parseArgs({
  options: {
    src: { type: 'string' },
    prefill: { type: 'string' },
    records: { type: 'string' },
    runs: { type: 'string' },
    drop: { type: 'string' },
    'page-size': { type: 'string' },
  },
});
const SRC = resolve(flags.src ?? join(import.meta.dirname, '..', 'src'));
const PREFILL = Number(flags.prefill ?? 100_000);
const RECORDS = Number(flags.records ?? 4_000);
const RUNS = Number(flags.runs ?? 3);

// Typed as this checkout's modules: --src names a checkout of the same shape.
const { openDatabase, configureConnection } = (await import(
  join(SRC, 'store/sqlite/open-database.ts')
)) as typeof import('../src/store/sqlite/open-database.ts');
const { LedgerStore } = (await import(join(SRC, 'store/sqlite/ledger-store.ts'))) as typeof import('../src/store/sqlite/ledger-store.ts');

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-pages-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'switchyard.db');
const { DatabaseSync } = await import('node:sqlite');
if (flags['page-size'] !== undefined) {
  // An experiment on an older checkout: the page size set before the file's first page is written.
  const first = new DatabaseSync(path);
  first.exec(`PRAGMA page_size = ${Number(flags['page-size'])}; CREATE TABLE t (x); DROP TABLE t;`);
  first.close();
}
const setup = openDatabase(path);
setup.close();
const db = new DatabaseSync(path);
configureConnection(db, { autoCheckpoint: false });
const ledger = new LedgerStore(db);
const PAGE = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);

// The bench gateway's account and key (bench/lib: one account on the enterprise tier, one key).
const ACCOUNT = 'acct_bench';
const KEY = 'b'.repeat(64);
const now = new Date().toISOString();
db.prepare(`INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES (?, ?, 'user', 'enterprise', ?, ?)`).run(
  ACCOUNT,
  'bench',
  10n ** 15n,
  now,
);
db.prepare(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES (?, ?, 'bench', 'sk-sy-v1-b...b', ?)`).run(
  KEY,
  ACCOUNT,
  now,
);

let clock = Date.now();
/** A settled non-streamed chat as the pipeline records it for the bench gateway (prices: bench/lib/switchyard-config.ts). */
function record(holdRowWritten: boolean) {
  clock += 1;
  const at = new Date(clock).toISOString();
  return {
    id: newGenerationId(clock),
    accountId: ACCOUNT,
    keyHash: KEY,
    model: 'acme/mock-1',
    provider: 'local',
    upstreamModel: 'mock-model',
    upstreamId: 'chatcmpl-bench',
    dialect: 'chat',
    streamed: false,
    cancelled: false,
    status: 'success' as const,
    errorCode: null,
    finishReason: 'stop',
    nativeFinishReason: 'stop',
    tokensPrompt: 23,
    tokensCompletion: 9,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costNanos: 41_000n,
    costBreakdown: { prompt: '0.000023', completion: '0.000018' },
    latencyMs: 1,
    firstTokenMs: 1,
    attempts: [{ provider: 'local', endpoint: 'local/mock-model', status: 200, ms: 1 }],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt: at,
    holdRowWritten,
  };
}
function hold(id: string) {
  const expires = new Date(clock + 600_000).toISOString();
  return { id, accountId: ACCOUNT, keyHash: KEY, amountNanos: 500_000n, createdAt: new Date(clock).toISOString(), expiresAt: expires };
}

const t0 = performance.now();
for (let done = 0; done < PREFILL; done += 64)
  ledger.settle(
    [],
    Array.from({ length: Math.min(64, PREFILL - done) }, () => record(false)),
  );
for (const index of flags.drop?.split(',') ?? []) db.exec(`DROP INDEX ${index}`);
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
process.stdout.write(
  `prefilled ${PREFILL.toLocaleString('en')} records in ${((performance.now() - t0) / 1000).toFixed(1)} s; page size ${PAGE}; src ${SRC}${flags.drop === undefined ? '' : `; dropped ${flags.drop}`}\n`,
);

const walSize = (): number => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};
const writes = (): number => Number(/syscw: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))?.[1]);
const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface Tally {
  bytes: number;
  writes: number;
  cpu: number;
}
const zero = (): Tally => ({ bytes: 0, writes: 0, cpu: 0 });
function measured(into: Tally, fn: () => void): void {
  const b = walSize();
  const w = writes();
  const c = cpu();
  fn();
  into.cpu += cpu() - c;
  into.writes += writes() - w;
  into.bytes += walSize() - b;
}

function run(batch: number): { settle: Tally; holds: Tally } {
  const settle = zero();
  const holds = zero();
  for (let done = 0; done < RECORDS; done += batch) {
    const records = Array.from({ length: batch }, () => record(true));
    measured(holds, () =>
      ledger.settle(
        records.map((r) => hold(r.id)),
        [],
      ),
    );
    measured(settle, () => ledger.settle([], records));
    // Outside the measured windows: the WAL restarts so its growth stays exact.
    if (walSize() > 16 * 1024 * 1024) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  return { settle, holds };
}

const frame = PAGE + 24;
const fmt = (t: Tally): string =>
  `${Math.round(t.bytes / RECORDS).toLocaleString('en')} WAL bytes (${(t.bytes / RECORDS / frame).toFixed(2)} frames), ` +
  `${(t.writes / RECORDS).toFixed(2)} writes, ${(t.cpu / RECORDS).toFixed(0)} µs CPU`;
run(8); // warm
for (const batch of [1, 8]) {
  for (let i = 0; i < RUNS; i++) {
    const { settle, holds } = run(batch);
    const both = { bytes: settle.bytes + holds.bytes, writes: settle.writes + holds.writes, cpu: settle.cpu + holds.cpu };
    process.stdout.write(`batch ${batch}, run ${i + 1}, per record: settlement ${fmt(settle)}; with the hold row ${fmt(both)}\n`);
  }
}

// Which b-trees the frames of a settlement belong to (dbstat names each page's table or index;
// page 1 is the schema page, whose header holds the database's size).
function pagesOf(from: number, to: number): number[] {
  const fd = openSync(`${path}-wal`, 'r');
  const header = Buffer.alloc(4);
  const pages: number[] = [];
  for (let at = from; at < to; at += frame) {
    readSync(fd, header, 0, 4, at);
    pages.push(header.readUInt32BE(0));
  }
  closeSync(fd);
  return pages;
}
for (const batch of [1, 8]) {
  const seen: number[] = [];
  for (let done = 0; done < 800; done += batch) {
    const records = Array.from({ length: batch }, () => record(true));
    ledger.settle(
      records.map((r) => hold(r.id)),
      [],
    );
    const b = walSize();
    ledger.settle([], records);
    seen.push(...pagesOf(b === 0 ? 32 : b, walSize()));
  }
  // One walk of dbstat (it has no index on pageno); pages change hands rarely in 800 records.
  const owner = new Map(
    (db.prepare('SELECT pageno, name FROM dbstat').all() as Array<{ pageno: number; name: string }>).map((r) => [r.pageno, r.name]),
  );
  const tally = new Map<string, number>();
  for (const p of seen) {
    const name = owner.get(p) ?? 'free';
    tally.set(name, (tally.get(name) ?? 0) + 1);
  }
  const per = [...tally].sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} ${(c / 800).toFixed(2)}`);
  process.stdout.write(`batch ${batch}, frames per record by b-tree: ${per.join(', ')}\n`);
}
db.close();
