import type { DatabaseSync } from 'node:sqlite';
import type { Services } from '../../src/server/services.ts';
import type { SqliteStores } from '../../src/store/sqlite/sqlite-stores.ts';

/**
 * The SQLite database under a gateway's stores, for tests and benchmarks that read or break
 * it directly (nothing in src/ above store/ may: Services hands out the store contract
 * only). Throws when the gateway runs on Postgres.
 */
export function sqliteDatabaseOf(services: Pick<Services, 'stores'>): DatabaseSync {
  if (services.stores.engine !== 'sqlite') throw new Error('no SQLite database: this gateway runs on Postgres (a fleet)');
  return (services.stores as SqliteStores).db;
}
