import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { NOW, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { RedisCreditHolds } from '../../src/billing/redis-credit-holds.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// The fleet's money path on both real engines: three instances holding credit in Redis,
// loading from and settling into Postgres.

const skip = redisUnavailable() ?? postgresUnavailable() ?? false;
let redis: RedisServer;
let pool: pg.Pool;
const connections: RedisConnection[] = [];

before(async () => {
  if (skip !== false) return;
  redis = await startRedis();
  pool = createPostgresPool({ url: await createTestDatabase(), max: 4 });
  await migratePostgres(pool);
});
after(async () => {
  for (const c of connections) await c.close();
  await pool?.end();
  await redis?.stop();
  await stopPostgres();
});

test('3 instances reserve, finish and settle into Postgres: the balance is spent exactly once and never overdrawn', { skip }, async () => {
  const balance = 10_000_000n;
  await pool.query(`INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ('acct_1', 'a', 'user', $1, $2)`, [
    String(balance),
    NOW,
  ]);
  await pool.query(
    `INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ('hash_1', 'acct_1', 'k', 'sk-sy-v1-x...y', $1)`,
    [NOW],
  );
  const ledger = new PostgresLedger(pool);
  const instances = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const conn = new RedisConnection({ url: redis.url });
      await conn.connect();
      connections.push(conn);
      return new RedisCreditHolds(conn, {
        loader: (_account, keyHash, ids, days) => ledger.spendState(keyHash, ids, days),
        instanceId: `i${i}`,
        holdMs: 60_000,
        settleMs: 60_000,
      });
    }),
  );
  // 30 requests of a 1M worst case each against 10M: exactly 10 are held.
  const reserved = await Promise.all(
    instances.flatMap((h, i) =>
      Array.from({ length: 10 }, async (_, j) => {
        const id = `g${i}-${j}`;
        return { id, h, r: await h.reserve(id, 'acct_1', 'hash_1', 1_000_000n) };
      }),
    ),
  );
  const held = reserved.filter((x) => x.r.ok);
  assert.equal(held.length, 10);
  // Each costs 700k; each instance settles its own and announces the commit.
  for (const { id, h } of held) {
    const charge = await h.finish(id, 'acct_1', 'hash_1', 700_000n);
    assert.equal(charge, 700_000n);
    await ledger.settle([], [settlement(id, charge, false)]);
    await h.committed('acct_1', [{ id, createdAt: NOW }]);
  }
  const db = (await pool.query(`SELECT balance_nanos FROM accounts WHERE id = 'acct_1'`)).rows[0].balance_nanos;
  assert.equal(BigInt(db), balance - 7_000_000n);
  assert.equal(await instances[0]!.heldFor('acct_1'), 0n);
  // What is left is exactly the database's balance, on every instance.
  assert.deepEqual(await instances[1]!.reserve('over', 'acct_1', 'hash_1', 3_000_001n), {
    ok: false,
    reason: 'balance',
    availableNanos: 3_000_000n,
  });
  assert.deepEqual(await instances[2]!.reserve('exact', 'acct_1', 'hash_1', 3_000_000n), { ok: true, heldNanos: 3_000_000n });
});
