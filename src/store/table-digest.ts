import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';

// A digest of a table's whole content that SQLite and Postgres compute alike: every row
// becomes text (integers in decimal, NULL marked), is hashed with SHA-256, and the row
// hashes are added modulo 2^256. The sum does not depend on row order, so neither engine's
// collation matters, and any changed, missing or extra row changes it.

const MOD = 1n << 256n;
/** Rows fetched per round trip from the Postgres cursor. */
const FETCH_ROWS = 2000;

function rowHash(values: readonly unknown[]): bigint {
  // Cells are text, numbers or bigints on both engines; whatever else one returns is stringified alike on both sides.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- see above
  const text = values.map((v) => (v === null || v === undefined ? '\u0000' : `\u0001${String(v)}`)).join('\u001f');
  return BigInt(`0x${createHash('sha256').update(text).digest('hex')}`);
}

export interface TableDigest {
  rows: number;
  digest: string;
}

/** The table's columns, in SQLite's order (both engines are read in it). */
export function sqliteColumns(db: DatabaseSync, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
}

export function sqliteDigest(db: DatabaseSync, table: string, columns: readonly string[]): TableDigest {
  const read = db.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}`);
  read.setReadBigInts(true);
  read.setReturnArrays(true);
  let sum = 0n;
  let rows = 0;
  for (const row of read.iterate() as Iterable<unknown[]>) {
    sum = (sum + rowHash(row)) % MOD;
    rows++;
  }
  return { rows, digest: sum.toString(16) };
}

/** Reads through a cursor, inside the caller's transaction (DECLARE needs one). */
export async function postgresDigest(client: pg.PoolClient, table: string, columns: readonly string[]): Promise<TableDigest> {
  const cursor = `digest_${table}`;
  await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}`);
  let sum = 0n;
  let rows = 0;
  for (;;) {
    const batch = await client.query({ text: `FETCH ${FETCH_ROWS} FROM ${cursor}`, rowMode: 'array' });
    for (const row of batch.rows as unknown[][]) {
      sum = (sum + rowHash(row)) % MOD;
      rows++;
    }
    if (batch.rows.length < FETCH_ROWS) break;
  }
  await client.query(`CLOSE ${cursor}`);
  return { rows, digest: sum.toString(16) };
}
