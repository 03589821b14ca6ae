import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type pg from 'pg';
import type { AuthContext } from '../../src/auth/authenticate.ts';
import { NOW, plan, request, settlement } from '../../src/billing/billing-fixtures.test-util.ts';
import { FleetCreditHolds, type SettlementEvents } from '../../src/billing/fleet-credit-holds.ts';
import { RedisCreditHolds } from '../../src/billing/redis-credit-holds.ts';
import { worstCaseCost } from '../../src/billing/worst-case-cost.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { SharedStateUnavailable, sharedStateUnavailable } from '../../src/shared/shared-state-unavailable.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { PostgresLedger } from '../../src/store/postgres/postgres-ledger.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { readyAgain, redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// The pipeline's CreditHolds seam in a fleet (FleetCreditHolds), on both real engines:
// several instances (each its own Redis connection) holding credit for one account in
// Redis, loading from and settling into Postgres.

const skip = redisUnavailable() ?? postgresUnavailable() ?? false;
const BOUND = { cheap: 10, tight: () => 10 };
const HOLD = worstCaseCost(request(), plan(), 10);
let redis: RedisServer;
const connections: RedisConnection[] = [];

before(async () => {
  if (skip === false) redis = await startRedis();
});
after(async () => {
  for (const c of connections) await c.close();
  await redis?.stop();
  await stopPostgres();
});

/** The settlement queue's part, over Postgres: writes a batch, then tells the listeners it committed. */
class PostgresSettlements implements SettlementEvents {
  private readonly committed: Array<(batch: readonly SettlementRecord[]) => void> = [];
  private readonly ledger: PostgresLedger;
  constructor(ledger: PostgresLedger) {
    this.ledger = ledger;
  }
  onCommitted(l: (batch: readonly SettlementRecord[]) => void): void {
    this.committed.push(l);
  }
  onDropped(): void {}
  async settle(records: SettlementRecord[]): Promise<void> {
    await this.ledger.settle([], records);
    for (const l of this.committed) l(records);
  }
}

interface Fleet {
  pool: pg.Pool;
  ledger: PostgresLedger;
  auth: AuthContext;
  instance(
    name: string,
    clock?: { now: number },
    commandTimeoutMs?: number,
  ): Promise<{ holds: FleetCreditHolds; settlements: PostgresSettlements; conn: RedisConnection; logs: string[] }>;
  balance(): Promise<bigint>;
}

async function fleet(balanceNanos: bigint, prefix: string): Promise<Fleet> {
  const pool = createPostgresPool({ url: await createTestDatabase(), max: 4 });
  await migratePostgres(pool);
  await pool.query(`INSERT INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES ('acct_1', 'a', 'user', $1, $2)`, [
    String(balanceNanos),
    NOW,
  ]);
  await pool.query(
    `INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ('hash_1', 'acct_1', 'k', 'sk-sy-v1-x...y', $1)`,
    [NOW],
  );
  const ledger = new PostgresLedger(pool);
  const auth = { key: { hash: 'hash_1' }, account: { id: 'acct_1' } } as AuthContext;
  return {
    pool,
    ledger,
    auth,
    async instance(name, clock, commandTimeoutMs) {
      const conn = new RedisConnection({
        url: redis.url,
        maxReconnectDelayMs: 200,
        ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
      });
      await conn.connect();
      connections.push(conn);
      const redisHolds = new RedisCreditHolds(conn, {
        loader: (_a, keyHash, ids, days) => ledger.spendState(keyHash, ids, days),
        instanceId: name,
        holdMs: 60_000,
        settleMs: 60_000,
        prefix,
        ...(clock === undefined ? {} : { now: () => clock.now }),
      });
      const settlements = new PostgresSettlements(ledger);
      const logs: string[] = [];
      const holds = new FleetCreditHolds(redisHolds, settlements, {
        accountOf: () => 'acct_1',
        publish: async () => {},
        log: (m) => logs.push(m),
      });
      return { holds, settlements, conn, logs };
    },
    async balance() {
      return BigInt((await pool.query(`SELECT balance_nanos FROM accounts WHERE id = 'acct_1'`)).rows[0].balance_nanos);
    },
  };
}

const reserve = (h: FleetCreditHolds, auth: AuthContext, id: string) => h.reserve(id, auth, request(), plan(), BOUND);

test(
  'an overspend attack spread over 3 instances: no more requests are held than the balance affords, and the balance never goes below zero',
  { skip, timeout: 30_000 },
  async () => {
    const start = 7n * HOLD + HOLD / 2n;
    const f = await fleet(start, 'attack');
    try {
      const instances = await Promise.all(['a', 'b', 'c'].map((n) => f.instance(n)));
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const inst = instances[i % 3]!;
          const id = `g${i}`;
          try {
            return { id, inst, held: await reserve(inst.holds, f.auth, id) };
          } catch (err) {
            assert.ok(err instanceof GatewayError && err.code === 'insufficient_quota', String(err));
            return null;
          }
        }),
      );
      const held = outcomes.filter((o) => o !== null);
      assert.equal(held.length, 7);
      assert.equal(
        instances.reduce((n, i) => n + i.holds.outstanding, 0),
        7,
      );
      // Each answer costs more than its hold: charged only what is there (the overshoot rule).
      await Promise.all(
        held.map(async ({ id, inst, held: h }) => {
          const charge = await inst.holds.finish(id, 'acct_1', 'hash_1', h, 2n * HOLD);
          await inst.settlements.settle([settlement(id, charge, false)]);
        }),
      );
      assert.equal(await f.balance(), 0n, 'spent to the last nano, never below');
      await assert.rejects(
        reserve(instances[0]!.holds, f.auth, 'after'),
        (e: unknown) => e instanceof GatewayError && e.code === 'insufficient_quota',
      );
    } finally {
      await f.pool.end();
    }
  },
);

test(
  "an instance that died with holds: another instance's reconciliation releases them once they expire",
  { skip, timeout: 30_000 },
  async () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    const f = await fleet(3n * HOLD, 'dead');
    try {
      const dying = await f.instance('dying', clock);
      const alive = await f.instance('alive', clock);
      for (const id of ['d1', 'd2', 'd3']) await reserve(dying.holds, f.auth, id);
      await dying.conn.close(); // gone without finishing anything
      await assert.rejects(
        reserve(alive.holds, f.auth, 'a0'),
        (e: unknown) => e instanceof GatewayError && e.code === 'insufficient_quota',
      );
      assert.equal(await alive.holds.releaseStale(), 0, 'not expired yet');
      clock.now += 60_001;
      assert.equal(await alive.holds.releaseStale(), 3);
      for (const id of ['a1', 'a2', 'a3']) assert.equal(await reserve(alive.holds, f.auth, id), HOLD);
      assert.equal(await f.balance(), 3n * HOLD, 'nothing charged for answers never given');
    } finally {
      await f.pool.end();
    }
  },
);

test(
  'Redis gone: reserve fails closed (503) and an answer already produced is still charged; Redis back: serves again, no charge lost or counted twice',
  { skip, timeout: 30_000 },
  async () => {
    const f = await fleet(4n * HOLD, 'outage');
    try {
      const { holds, settlements, conn, logs } = await f.instance('i');
      const held = await reserve(holds, f.auth, 'before');
      const lost = once(conn.client, 'error');
      await redis.stop();
      await lost;

      const err = await reserve(holds, f.auth, 'during').then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof SharedStateUnavailable, String(err));
      const refusal = sharedStateUnavailable(err);
      assert.equal(refusal.status, 503);
      assert.equal(refusal.code, 'shared_state_unavailable');
      assert.equal(refusal.headers?.['retry-after'], '1');

      // The answer of the hold taken before the outage is done: charged (its hold at most), durably.
      const charge = await holds.finish('before', 'acct_1', 'hash_1', held, 2n * HOLD);
      assert.equal(charge, HOLD, 'beyond its hold an answer is charged only when Redis can say there is room');
      await settlements.settle([settlement('before', charge, false)]);
      assert.equal(await f.balance(), 3n * HOLD);
      assert.ok(
        logs.some((m) => m.includes('before')),
        'the operator hears of it',
      );

      const back = readyAgain(conn.client);
      await redis.restart();
      await back;
      // The snapshot is read afresh from Postgres: exactly what is left there (3 holds' worth;
      // 4 if the charge were lost, 2 if it were counted twice).
      let taken = 0n;
      for (let i = 0; i < 10; i++) {
        try {
          taken += await reserve(holds, f.auth, `after${i}`);
        } catch (e) {
          assert.ok(e instanceof GatewayError && e.code === 'insufficient_quota', String(e));
          break;
        }
      }
      assert.equal(taken, 3n * HOLD);
    } finally {
      await f.pool.end();
    }
  },
);

test(
  'Redis too slow to answer (paused, its data kept): the answer is charged at most its hold, and once Redis answers the account is re-read so the charge counts exactly once',
  { skip, timeout: 30_000 },
  async () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
    const f = await fleet(4n * HOLD, 'paused');
    const admin = new RedisConnection({ url: redis.url });
    await admin.connect();
    connections.push(admin);
    try {
      const { holds, settlements } = await f.instance('slow', clock, 200);
      const held = await reserve(holds, f.auth, 'before');
      // Scripts (they write) wait while Redis is paused: this instance's calls time out.
      await admin.send(['CLIENT', 'PAUSE', '60000', 'WRITE']);
      const charge = await holds.finish('before', 'acct_1', 'hash_1', held, 2n * HOLD);
      assert.equal(charge, HOLD);
      await settlements.settle([settlement('before', charge, false)]);
      assert.equal(await f.balance(), 3n * HOLD);
      // The calls that timed out still run once Redis resumes (in order), whatever they did.
      await admin.send(['CLIENT', 'UNPAUSE']);
      clock.now += 120_001; // past every hold's and settling charge's expiry
      await holds.releaseStale(); // repairs (re-reads the account) and reconciles
      let taken = 0n;
      for (let i = 0; i < 10; i++) {
        try {
          taken += await reserve(holds, f.auth, `after${i}`);
        } catch (e) {
          assert.ok(e instanceof GatewayError && e.code === 'insufficient_quota', String(e));
          break;
        }
      }
      assert.equal(taken, 3n * HOLD, 'exactly what Postgres has left (4 holds if the charge were lost, 2 if counted twice)');
    } finally {
      await admin.send(['CLIENT', 'UNPAUSE']).catch(() => {});
      await f.pool.end();
    }
  },
);
