import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { releaseStaleHolds } from '../../src/store/postgres/postgres-stale-holds.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// The fleet's stale-hold sweep on a real Postgres: two instances sweeping at once take each
// expired row once, record each request once as `interrupted`, charge nothing, and leave
// alone the rows not yet expired and the records already settled.

const skip = postgresUnavailable() ?? false;

after(async () => {
  if (skip === false) await stopPostgres();
});

const PAST = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:10:00.000Z';
const FUTURE = '2026-01-01T01:00:00.000Z';

test(
  'two instances sweeping at once: each expired row taken once, one interrupted record each, nothing charged',
  { skip, timeout: 60_000 },
  async () => {
    const url = await createTestDatabase();
    const a = createPostgresPool({ url, max: 2 });
    const b = createPostgresPool({ url, max: 2 });
    try {
      await migratePostgres(a);
      await a.query(`INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ('acct_1', 'a', 'user', '1000', $1)`, [
        NOW,
      ]);
      await a.query(
        `INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ('hash_1', 'acct_1', 'k', 'sk-sy-v1-x...y', $1)`,
        [NOW],
      );
      const ledger = new PostgresLedger(a);
      const expired = Array.from({ length: 40 }, (_, i) => `gen-${String(i).padStart(2, '0')}`);
      await ledger.settle(
        [...expired, 'gen-live'].map((id) => ({
          id,
          accountId: 'acct_1',
          keyHash: 'hash_1',
          amountNanos: 5n,
          createdAt: PAST,
          expiresAt: id === 'gen-live' ? FUTURE : PAST,
        })),
        [],
      );
      // A row whose request is already recorded (left beside its settlement): removed, its record kept.
      await ledger.settle([], [settlement('gen-settled', 7n, false)]);
      await a.query(
        `INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES ('gen-settled', 'acct_1', 'hash_1', 5, $1, $1)`,
        [PAST],
      );

      const [fromA, fromB] = await Promise.all([releaseStaleHolds(a, LATER, LATER), releaseStaleHolds(b, LATER, LATER)]);
      assert.equal(fromA + fromB, 41, `${fromA} + ${fromB} rows removed`);
      assert.deepEqual((await a.query('SELECT id FROM reservations')).rows, [{ id: 'gen-live' }]);
      const records = (await a.query(`SELECT id, error_code, cost_nanos, created_at FROM generations ORDER BY id`)).rows;
      assert.deepEqual(records, [
        ...expired.map((id) => ({ id, error_code: 'interrupted', cost_nanos: '0', created_at: LATER })),
        { id: 'gen-settled', error_code: null, cost_nanos: '7', created_at: NOW },
      ]);
      assert.equal((await a.query(`SELECT count(*) AS n FROM ledger`)).rows[0].n, '1', 'only the settled request is charged');
      assert.equal(await releaseStaleHolds(b, LATER, LATER), 0, 'a second sweep finds nothing');
    } finally {
      await a.end();
      await b.end();
    }
  },
);
