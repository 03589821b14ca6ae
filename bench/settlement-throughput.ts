// node bench/settlement-throughput.ts [--src DIR] [--records N] [--batch N] [--writer]
//
// --writer: through the gateway's SQLite writer thread (store/sqlite/sqlite-writer/), one batch
// in flight at a time as the settlement queue sends them, the main thread awaiting each:
// what the thread hop costs beside the transaction itself.
//
// Settlement writes per second: LedgerStore.settle in batches (what the settlement queue's
// group commit does), on a temporary database on disk. --src points at another checkout's
// src/ (e.g. the commit before the rollups and the generation-list indexes), so the cost
// of what this branch adds to the hot path can be measured before and after.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchKeys, settlementRecords } from './lib/bench-settlements.ts';

const { values: flags } = parseArgs({
  options: { src: { type: 'string' }, records: { type: 'string' }, batch: { type: 'string' }, writer: { type: 'boolean' } },
});
const SRC = resolve(flags.src ?? join(import.meta.dirname, '..', 'src'));
const RECORDS = Number(flags.records ?? 200_000);
const BATCH = Number(flags.batch ?? 64);

const { openDatabase } = await import(join(SRC, 'store/sqlite/open-database.ts'));
const { LedgerStore } = await import(join(SRC, 'store/sqlite/ledger-store.ts'));

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-settle-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const db = openDatabase(join(dir, 'switchyard.db'));
const ledger = new LedgerStore(db);
const now = new Date().toISOString();
const keys = benchKeys();
for (const account of new Set(keys.map((k) => k.account))) {
  db.prepare(`INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES (?, ?, 'user', 'free', ?, ?)`).run(
    account,
    account,
    10n ** 15n,
    now,
  );
}
for (const k of keys)
  db.prepare(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES (?, ?, 'k', 'l', ?)`).run(k.hash, k.account, now);
const record = settlementRecords(keys);
const writer =
  flags.writer === true
    ? new (await import(join(SRC, 'store/sqlite/sqlite-writer/sqlite-writer.ts'))).SqliteWriter(join(dir, 'switchyard.db'), {
        log: (m: string) => process.stderr.write(`${m}\n`),
      })
    : null;
const t0 = performance.now();
for (let done = 0; done < RECORDS; done += BATCH) {
  const batch = Array.from({ length: Math.min(BATCH, RECORDS - done) }, record);
  if (writer === null) ledger.settle([], batch);
  else await writer.settle([], batch);
}
const s = (performance.now() - t0) / 1000;
const how = writer === null ? '' : ', through the writer thread';
process.stdout.write(
  `settlement: ${RECORDS.toLocaleString('en')} records in batches of ${BATCH}${how}: ${s.toFixed(2)} s, ${Math.round(RECORDS / s).toLocaleString('en')} records/s (src: ${SRC})\n`,
);
await writer?.close();
db.close();
