import type { DatabaseSync } from 'node:sqlite';
import { namesOf, STORED_COLUMNS, storedValues } from '../../src/store/generation-row.ts';
import type { GenerationRecord } from '../../src/store/generation-records.ts';
import {
  addToRollup,
  coarseRollups,
  GLOBAL_ROLLUP_UPSERT_SQL,
  globalRollupParams,
  KEYS_ROLLUP_UPSERT_SQL,
  keysRollupParams,
  ROLLUP_UPSERT_SQL,
  rollupParams,
  type RollupRow,
} from '../../src/store/usage-rollup.ts';

// Fills a SQLite database with generation records fast, for the benchmarks of large
// databases: the records as the settlement stores them (generation-row.ts storedValues, the
// names through record_names), inserted with one prepared statement in transactions of
// 100,000 with the table's indexes (but the id's) dropped and built again at the end, and
// their daily rollups summed in memory and written once. The ledger is not filled (the
// benchmarks read records and rollups).

const BATCH = 100_000;

export interface FillResult {
  records: number;
  seconds: number;
}

export function fillRecords(db: DatabaseSync, records: Iterable<GenerationRecord>, progress: (n: number) => void = () => {}): FillResult {
  const t0 = performance.now();
  // The unique index on the id stays: a settlement's upsert names it (ON CONFLICT (id)), and a
  // writer thread preparing it meanwhile would fail.
  const indexes = db
    .prepare(
      `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'generation_records' AND sql IS NOT NULL
    AND sql NOT LIKE 'CREATE UNIQUE%'`,
    )
    .all() as Array<{ name: string; sql: string }>;
  for (const i of indexes) db.exec(`DROP INDEX ${i.name}`);
  db.exec('PRAGMA synchronous = OFF');
  const ids = new Map<string, number>(
    (db.prepare('SELECT id, name FROM record_names').all() as Array<{ id: number; name: string }>).map((r) => [r.name, Number(r.id)]),
  );
  const addName = db.prepare('INSERT INTO record_names (name) VALUES (?) RETURNING id');
  const ref = (name: string | null): number | null => {
    if (name === null) return null;
    let id = ids.get(name);
    if (id === undefined) {
      id = Number((addName.get(name) as { id: number }).id);
      ids.set(name, id);
    }
    return id;
  };
  const insert = db.prepare(
    `INSERT INTO generation_records (${STORED_COLUMNS.join(', ')}) VALUES (${STORED_COLUMNS.map(() => '?').join(', ')})`,
  );
  const rollups = new Map<string, RollupRow>();
  let n = 0;
  db.exec('BEGIN');
  for (const r of records) {
    for (const name of namesOf(r)) ref(name);
    insert.run(...storedValues(r, ref));
    addToRollup(rollups, r);
    if (++n % BATCH === 0) {
      db.exec('COMMIT');
      db.exec('PRAGMA wal_checkpoint(PASSIVE)'); // no checkpointer runs while nothing settles: keep the WAL short
      progress(n);
      db.exec('BEGIN');
    }
  }
  db.exec('COMMIT');
  for (const i of indexes) db.exec(i.sql);
  db.exec('BEGIN');
  const upsert = db.prepare(ROLLUP_UPSERT_SQL);
  for (const row of rollups.values()) upsert.run(...rollupParams(row));
  const coarse = coarseRollups(rollups.values());
  const upsertGlobal = db.prepare(GLOBAL_ROLLUP_UPSERT_SQL);
  const upsertKeys = db.prepare(KEYS_ROLLUP_UPSERT_SQL);
  for (const row of coarse.global) upsertGlobal.run(...globalRollupParams(row));
  for (const row of coarse.keys) upsertKeys.run(...keysRollupParams(row));
  db.exec('COMMIT');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('ANALYZE');
  return { records: n, seconds: (performance.now() - t0) / 1000 };
}
