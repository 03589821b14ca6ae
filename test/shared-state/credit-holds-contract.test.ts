import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthContext } from '../../src/auth/authenticate.ts';
import { ledgered, plan, request, settlement, writerOf } from '../../src/billing/billing-fixtures.test-util.ts';
import type { CreditHolds } from '../../src/billing/credit-holds.ts';
import { CreditReservations } from '../../src/billing/credit-reservations.ts';
import { FleetCreditHolds } from '../../src/billing/fleet-credit-holds.ts';
import { RedisCreditHolds } from '../../src/billing/redis-credit-holds.ts';
import { SettlementQueue } from '../../src/billing/settlement-queue.ts';
import { worstCaseCost } from '../../src/billing/worst-case-cost.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { openSqliteStores } from '../../src/store/sqlite/sqlite-stores.ts';
import { openPostgresStores, type PostgresStores } from '../../src/store/postgres/postgres-stores.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';

// The CreditHolds contract, as the pipeline relies on it (reserve → finish → settlement
// committed through the SettlementQueue), run against every implementation over every
// database it runs on: CreditReservations (one process, SQLite: the fixtures' database),
// FleetCreditHolds over RedisCreditHolds (a real redis-server) loading from that SQLite
// database, and the same over Postgres (a fresh database, the fleet's hold rows written, as
// a gateway of a fleet runs it). Each has one account acct_1 with one key hash_1. Each case
// asserts what it expects on each and returns what all must agree on. Each implementation's own matters (3
// instances at once, Redis outages, hold rows) stay in credit-reservations.test.ts,
// redis-credit-holds.test.ts and fleet-credit-holds*.test.ts.

const PROMPT = { cheap: 10, tight: () => 10 };
/** What one request of the fixtures holds. */
const HOLD = worstCaseCost(request(), plan(), 10);

interface Subject {
  holds: CreditHolds;
  /** The database's side, changed as the operator would (then `forget`). */
  db: {
    credit(amountNanos: bigint): Promise<void>;
    setKeyActive(on: boolean): Promise<void>;
    setAccountActive(on: boolean): Promise<void>;
  };
  /** reserve's amount, or the refusal's error code (and its reason: balance or key_limit). */
  reserve(id: string): Promise<bigint | string>;
  /** finish, as the pipeline calls it after the answer: returns the charge. */
  finish(id: string, held: bigint, cost: bigint): Promise<bigint>;
  /** The charge's settlement written and committed. */
  commit(id: string, charge: bigint): Promise<void>;
  /** Something changed in the database: read it afresh (awaited, on a fleet too). */
  forget(keyHash: string | undefined, accountId: string | undefined): Promise<void>;
}

const skipRedis = redisUnavailable();
const skipPostgres = postgresUnavailable();
const NOW = '2026-01-01T00:00:00Z';
const opened: PostgresStores[] = [];
let redis: RedisServer | undefined;
const connections: RedisConnection[] = [];
let prefixes = 0;
before(async () => {
  if (skipRedis === null) redis = await startRedis();
});
after(async () => {
  for (const c of connections) await c.close();
  await redis?.stop();
  for (const s of opened) await s.close();
  await stopPostgres();
});

function subject(auth: AuthContext, db: Subject['db'], holds: CreditHolds, queue: SettlementQueue, forget: Subject['forget']): Subject {
  return {
    holds,
    db,
    forget,
    async reserve(id) {
      try {
        return await holds.reserve(id, auth, request(), plan(), PROMPT);
      } catch (err) {
        if (err instanceof GatewayError)
          return err.metadata?.reason === undefined ? err.code : `${err.code}: ${String(err.metadata.reason)}`;
        throw err;
      }
    },
    finish: async (id, held, cost) => holds.finish(id, 'acct_1', 'hash_1', held, cost),
    async commit(id, charge) {
      const done = queue.push(settlement(id, charge, false));
      await queue.flush();
      assert.equal((await done).committed, true);
    },
  };
}

/** The fixtures' SQLite database, changed through its synchronous classes. */
function sqliteBase(balance: bigint, limit: bigint | null) {
  const base = ledgered(balance, limit);
  const stores = openSqliteStores({ db: base.db });
  const db: Subject['db'] = {
    credit: async (amount) => {
      base.ledger.addEntry('acct_1', 'credit', amount, null, NOW);
    },
    setKeyActive: async (on) => {
      base.accounts.setKeyActive('hash_1', on, 'operator');
    },
    setAccountActive: async (on) => {
      base.accounts.updateAccount('acct_1', { isActive: on });
    },
  };
  return { auth: base.auth, db, writer: writerOf(base.ledger), holds: stores.holds, inProcessHolds: stores.inProcessHolds! };
}

function inProcess(balance: bigint, limit: bigint | null): Subject {
  const base = sqliteBase(balance, limit);
  const queue = new SettlementQueue(base.writer, { log: () => {}, firstRetryMs: 60_000 });
  const holds: CreditHolds = new CreditReservations(base.inProcessHolds, queue, { holdMs: 60_000 });
  return subject(base.auth, base.db, holds, queue, async (keyHash, accountId) => holds.forget(keyHash, accountId));
}

/** FleetCreditHolds over Redis, its snapshots loaded from `loadFrom` (Stores.holds), its settlements written by `queue`. */
async function onRedis(
  loadFrom: PostgresStores['holds'],
  queue: SettlementQueue,
  rows?: { write: (h: Parameters<SettlementQueue['pushHold']>[0]) => void; releaseStale: PostgresStores['holds']['releaseStale'] },
): Promise<FleetCreditHolds> {
  const connection = new RedisConnection({ url: redis!.url });
  await connection.connect();
  connections.push(connection);
  const shared = new RedisCreditHolds(connection, {
    loader: async (_accountId, keyHash, ids, days) => loadFrom.loadSpendState(keyHash, ids, days),
    instanceId: 'i1',
    holdMs: 60_000,
    settleMs: 120_000,
    prefix: `chc${process.pid}-${++prefixes}`,
  });
  return new FleetCreditHolds(shared, queue, {
    accountOf: () => 'acct_1',
    publish: async () => {},
    log: () => {},
    ...(rows === undefined ? {} : { rows: { holdMs: 60_000, ...rows } }),
  });
}

async function fleet(balance: bigint, limit: bigint | null): Promise<Subject> {
  const base = sqliteBase(balance, limit);
  const queue = new SettlementQueue(base.writer, { log: () => {}, firstRetryMs: 60_000 });
  const holds = await onRedis(base.holds, queue);
  return subject(base.auth, base.db, holds, queue, (keyHash, accountId) => holds.forgetShared(keyHash, accountId));
}

/** A fleet on Postgres: a fresh database with acct_1 and hash_1, settlements and hold rows written there. */
async function fleetOnPostgres(balance: bigint, limit: bigint | null): Promise<Subject> {
  const stores = await openPostgresStores(await createTestDatabase(), { max: 3 });
  opened.push(stores);
  const account = await stores.accounts.createAccount({
    id: 'acct_1',
    name: 'a',
    accountType: 'user',
    tier: 'tier2',
    defaultModel: null,
    now: NOW,
  });
  if (balance > 0n) await stores.ledger.addEntry('acct_1', 'credit', balance, null, NOW);
  const key = await stores.accounts.createKey({
    hash: 'hash_1',
    accountId: 'acct_1',
    name: 'k',
    label: 'sk-sy-v1-x...y',
    limitNanos: limit,
    isManagement: false,
    expiresAt: null,
    now: NOW,
  });
  const queue = new SettlementQueue(stores.settlements, { log: () => {}, firstRetryMs: 60_000 });
  const holds = await onRedis(stores.holds, queue, {
    write: (h) => queue.pushHold(h),
    releaseStale: (b, n) => stores.holds.releaseStale(b, n),
  });
  const db: Subject['db'] = {
    credit: async (amount) => {
      await stores.ledger.addEntry('acct_1', 'credit', amount, null, NOW);
    },
    setKeyActive: async (on) => {
      await stores.accounts.setKeyActive('hash_1', on, 'operator');
    },
    setAccountActive: async (on) => {
      await stores.accounts.updateAccount('acct_1', { isActive: on });
    },
  };
  return subject({ key, account: { ...account, balanceNanos: balance } }, db, holds, queue, (keyHash, accountId) =>
    holds.forgetShared(keyHash, accountId),
  );
}

type Open = (balance: bigint, limit: bigint | null) => Promise<Subject>;

/** A contract case that opens its own subjects (fresh accounts): every implementation must return the same. */
function agree(name: string, fn: (open: Open) => Promise<unknown>): void {
  test(`${name} (in process, and on Redis over SQLite and over Postgres alike)`, async (t) => {
    const local = await fn(async (balance, limit) => inProcess(balance, limit));
    if (skipRedis !== null) {
      t.diagnostic(`Redis parts skipped: ${skipRedis}`);
      return;
    }
    assert.deepEqual(await fn(fleet), local, 'on Redis over SQLite');
    if (skipPostgres !== null) {
      t.diagnostic(`Postgres part skipped: ${skipPostgres}`);
      return;
    }
    assert.deepEqual(await fn(fleetOnPostgres), local, 'on Redis over Postgres');
  });
}

/** One contract case on a fresh account of `balance` (and key limit). */
function contractCase(name: string, balance: bigint, limit: bigint | null, fn: (s: Subject) => Promise<unknown>): void {
  agree(name, async (open) => fn(await open(balance, limit)));
}

contractCase('holds never together exceed the balance; what is held is reported and counted', 3n * HOLD + HOLD / 2n, null, async (s) => {
  const results = [];
  for (const id of ['g1', 'g2', 'g3', 'g4']) results.push(await s.reserve(id));
  assert.deepEqual(results, [HOLD, HOLD, HOLD, 'insufficient_quota: balance']);
  assert.equal(await s.holds.heldFor('acct_1'), 3n * HOLD);
  assert.equal(s.holds.outstanding, 3);
  return results;
});

contractCase(
  'finish charges the cost and frees the rest; the charge counts while settling and, once committed, moves the balance once',
  3n * HOLD,
  null,
  async (s) => {
    assert.equal(await s.reserve('g1'), HOLD);
    const charge = await s.finish('g1', HOLD, HOLD / 2n);
    assert.equal(charge, HOLD / 2n);
    assert.equal(s.holds.outstanding, 0);
    assert.equal(await s.holds.heldFor('acct_1'), HOLD / 2n, 'settling until committed');
    await s.commit('g1', charge);
    assert.equal(await s.holds.heldFor('acct_1'), 0n);
    // 2.5 holds left: two fit, the third does not.
    const after = [await s.reserve('g2'), await s.reserve('g3'), await s.reserve('g4')];
    assert.deepEqual(after, [HOLD, HOLD, 'insufficient_quota: balance']);
    return { charge, after };
  },
);

contractCase('a failed request (cost 0) is charged nothing and its hold is freed', HOLD, null, async (s) => {
  assert.equal(await s.reserve('g1'), HOLD);
  assert.equal(await s.reserve('g2'), 'insufficient_quota: balance');
  assert.equal(await s.finish('g1', HOLD, 0n), 0n);
  assert.equal(await s.holds.heldFor('acct_1'), 0n);
  assert.equal(await s.reserve('g2'), HOLD);
});

for (const [balance, limit] of [
  [5n * HOLD, null],
  [5n * HOLD, 3n * HOLD],
  [2n * HOLD + HOLD / 3n, null],
] as const) {
  contractCase(
    `the overshoot rule: an answer costing more than its hold is charged the same (balance ${balance / HOLD}×, limit ${limit === null ? 'none' : `${limit / HOLD}×`})`,
    balance,
    limit,
    async (s) => {
      assert.equal(await s.reserve('g1'), HOLD);
      assert.equal(await s.reserve('g2'), HOLD);
      // Each charge counts as settling, so the later ones meet less room: the sequence is what must agree.
      const steps = [];
      for (const [i, cost] of [HOLD + 1n, 2n * HOLD, 10n * HOLD, 3n * HOLD].entries()) {
        const held = await s.reserve(`o${i}`);
        steps.push([held, typeof held === 'bigint' ? await s.finish(`o${i}`, held, cost) : null]);
      }
      const last = await s.finish('g1', HOLD, 10n * HOLD);
      assert.ok(last <= 10n * HOLD && last >= HOLD, 'at least the hold, at most the cost');
      steps.push([HOLD, last]);
      return steps;
    },
  );
}

agree('the overshoot rule over a grid of costs: with another hold in flight, finish charges the same', async (open) => {
  const charges = [];
  for (const [balance, limit] of [
    [5n * HOLD, null],
    [5n * HOLD, 3n * HOLD],
    [2n * HOLD + HOLD / 3n, null],
  ] as const) {
    for (const cost of [0n, HOLD / 2n, HOLD, HOLD + 1n, 2n * HOLD, 3n * HOLD, 10n * HOLD]) {
      const s = await open(balance, limit);
      assert.equal(await s.reserve('g1'), HOLD);
      assert.equal(await s.reserve('g2'), HOLD);
      const charge = await s.finish('g1', HOLD, cost);
      assert.ok(charge <= cost, `never more than the cost: ${charge} for ${cost}`);
      charges.push([String(balance), String(limit), String(cost), String(charge)]);
    }
  }
  return charges;
});

contractCase(
  "a key's own limit refuses past it with reason key_limit, whatever the balance; usage counts against it once settled",
  100n * HOLD,
  HOLD + HOLD / 2n,
  async (s) => {
    const results = [await s.reserve('g1'), await s.reserve('g2')];
    assert.deepEqual(results, [HOLD, 'insufficient_quota: key_limit']);
    const charge = await s.finish('g1', HOLD, HOLD);
    await s.commit('g1', charge);
    results.push(await s.reserve('g2'));
    assert.equal(results[2], 'insufficient_quota: key_limit', 'the limit left is half a hold');
    return results;
  },
);

contractCase(
  'changes made in the database count once forgotten; a revoked key or an inactive account is refused with 401',
  HOLD,
  null,
  async (s) => {
    assert.equal(await s.reserve('g1'), HOLD);
    assert.equal(await s.reserve('g2'), 'insufficient_quota: balance');
    await s.db.credit(HOLD);
    await s.forget('hash_1', 'acct_1');
    assert.equal(await s.reserve('g2'), HOLD);
    await s.db.setKeyActive(false);
    await s.forget('hash_1', 'acct_1');
    assert.equal(await s.reserve('g3'), 'authentication_required');
    await s.db.setKeyActive(true);
    await s.db.setAccountActive(false);
    await s.forget(undefined, 'acct_1');
    assert.equal(await s.reserve('g3'), 'authentication_required');
  },
);
