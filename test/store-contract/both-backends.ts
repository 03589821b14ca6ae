import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite/sqlite-stores.ts';
import { openPostgresStores } from '../../src/store/postgres/postgres-stores.ts';
import type { Stores } from '../../src/store/store-contract.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// The conformance harness: each case runs on a fresh SQLite database (in a temp dir) and on
// a fresh Postgres database (test/support/postgres-server.ts), checks its own expectations
// on each, and the two must return identical results.

const skipPostgres = postgresUnavailable();
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await stopPostgres();
});

async function withSqlite<T>(fn: (s: Stores) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-contract-'));
  dirs.push(dir);
  const stores = openSqliteStores({ database: { path: join(dir, 'switchyard.db') } });
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

async function withPostgres<T>(fn: (s: Stores) => Promise<T>): Promise<T> {
  const stores = await openPostgresStores(await createTestDatabase(), { max: 3 });
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

/** One contract case: `fn` asserts what it expects and returns what the two backends must agree on. */
export function contractCase(name: string, fn: (s: Stores) => Promise<unknown>): void {
  test(`${name} (SQLite and Postgres alike)`, async (t) => {
    const sqlite = await withSqlite(fn);
    if (skipPostgres !== null) {
      t.diagnostic(`Postgres part skipped: ${skipPostgres}`);
      return;
    }
    const postgres = await withPostgres(fn);
    assert.deepEqual(plain(postgres), plain(sqlite));
  });
}

/** Rows as plain objects (SQLite's rows have a null prototype), values untouched. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
