import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// Migration 7 on Postgres: a generation record says whether the response cache served it.

const skip = postgresUnavailable() ?? false;

after(async () => {
  if (skip === false) await stopPostgres();
});

test(
  'PostgresLedger writes cache_hit: 1 for a response-cache hit, 0 otherwise (and for records that do not say)',
  { skip, timeout: 60_000 },
  async () => {
    const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
    try {
      await migratePostgres(pool);
      await pool.query(
        `INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ('acct_1', 'a', 'user', '1000000', $1)`,
        [NOW],
      );
      await pool.query(
        `INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ('hash_1', 'acct_1', 'k', 'sk-sy-v1-x...y', $1)`,
        [NOW],
      );
      const ledger = new PostgresLedger(pool);
      await ledger.settle(
        [],
        [
          { ...settlement('gen-hit', 10n, false), cacheHit: true },
          { ...settlement('gen-miss', 40n, false), cacheHit: false },
          settlement('gen-unsaid', 40n, false),
        ],
      );
      const rows = (await pool.query('SELECT id, cache_hit FROM generations ORDER BY id')).rows.map((r) => [r.id, Number(r.cache_hit)]);
      assert.deepEqual(rows, [
        ['gen-hit', 1],
        ['gen-miss', 0],
        ['gen-unsaid', 0],
      ]);
    } finally {
      await pool.end();
    }
  },
);
