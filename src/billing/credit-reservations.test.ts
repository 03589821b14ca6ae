import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../errors/gateway-error.ts';
import { ReservationStore } from '../store/sqlite/reservation-store.ts';
import { ledgered, writerOf, plan, request, setWritable, settlement, type Ledgered } from './billing-fixtures.test-util.ts';
import { CreditReservations } from './credit-reservations.ts';
import { SettlementQueue } from './settlement-queue.ts';
import { worstCaseCost } from './worst-case-cost.ts';

const PROMPT_TOKENS = 10;
/** A prompt bound of exactly PROMPT_TOKENS, cheap or tight. */
const BOUND = { cheap: PROMPT_TOKENS, tight: () => PROMPT_TOKENS };
/** What one request of the fixtures holds (the worst-case math is worst-case-cost.ts's). */
const HOLD = worstCaseCost(request(), plan(), PROMPT_TOKENS);

// What CreditReservations shares with the fleet's holds (holds against the balance and a
// key's limit, settlement, the overshoot rule, forgetting) is the CreditHolds contract suite's,
// run on both: test/shared-state/credit-holds-contract.test.ts. Here: this implementation's own.

interface Setup extends Ledgered {
  queue: SettlementQueue;
  reservations: CreditReservations;
  store: ReservationStore;
  clock: { now: number };
}

function setup(balanceNanos: bigint, limitNanos: bigint | null = null): Setup {
  const base = ledgered(balanceNanos, limitNanos);
  const queue = new SettlementQueue(writerOf(base.ledger), { log: () => {}, firstRetryMs: 60_000 });
  const store = new ReservationStore(base.db);
  const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
  const reservations = new CreditReservations(store, queue, { holdMs: 1000, now: () => clock.now });
  return { ...base, queue, reservations, store, clock };
}

const reserve = (s: Setup, id: string) => s.reservations.reserve(id, s.auth, request(), plan(), BOUND);

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof GatewayError);
    return e;
  }
  assert.fail('expected a refusal');
}

/** Settles request `id` (held HOLD) at `cost`, as the pipeline does, and waits for the write. */
async function settle(s: Setup, id: string, cost: bigint): Promise<boolean> {
  s.reservations.settling('acct_1', 'hash_1', HOLD, cost);
  const done = s.queue.push(settlement(id, cost));
  await s.queue.flush();
  return (await done).committed;
}

test('a charge the database refused stays counted until it is written: the balance stays protected', async () => {
  const s = setup(2n * HOLD);
  reserve(s, 'g1');
  setWritable(s.db, false);
  assert.equal(await settle(s, 'g1', HOLD), false);
  assert.equal(s.accounts.balance('acct_1'), 2n * HOLD, 'nothing written');
  assert.equal(s.reservations.heldFor('acct_1'), HOLD, 'the unwritten charge still counts');
  reserve(s, 'g2');
  assert.equal(refusal(() => reserve(s, 'g3')).code, 'insufficient_quota', 'the unwritten charge is not spent twice');

  setWritable(s.db, true);
  assert.equal(await s.queue.retry(), true);
  assert.equal(s.accounts.balance('acct_1'), HOLD, 'the charge is on disk once writes work again');
  assert.equal(s.reservations.heldFor('acct_1'), HOLD, 'only g2 is held; the charge counted once');
  assert.equal(refusal(() => reserve(s, 'g3')).code, 'insufficient_quota');
});

test('a zero or negative balance refuses even a free request', () => {
  const s = setup(0n);
  const free = refusal(() => s.reservations.reserve('g1', s.auth, request(), plan('0', '0'), BOUND));
  assert.equal(free.code, 'insufficient_quota');
  s.ledger.addEntry('acct_1', 'credit', 1n, null, '2026-01-01T00:00:00Z');
  s.reservations.forget();
  assert.equal(s.reservations.reserve('g2', s.auth, request(), plan('0', '0'), BOUND), 0n, 'a free model holds nothing');
});

test('stale hold rows: the sweep releases only expired ones, start-up releases all, each leaving an interrupted record', async () => {
  const s = setup(10n * HOLD);
  reserve(s, 'old');
  await s.queue.flush();
  s.clock.now += 500;
  reserve(s, 'young');
  await s.queue.flush();
  assert.equal(s.store.count(), 2);
  s.clock.now += 600; // 'old' is past its expiry (1000 ms), 'young' is not
  assert.equal(s.reservations.releaseStale(false), 1);
  assert.equal(s.store.count(), 1);
  assert.equal(s.reservations.releaseStale(true), 1);
  assert.equal(s.store.count(), 0);
  const interrupted = s.db.prepare("SELECT id FROM generations WHERE error_code = 'interrupted' ORDER BY id").all() as Array<{
    id: string;
  }>;
  assert.deepEqual(
    interrupted.map((r) => r.id),
    ['old', 'young'],
  );
  assert.equal(s.accounts.balance('acct_1'), 10n * HOLD, 'nothing is charged for them');
});

test('a charge written after the sweep released its hold still counts, and its record replaces the interrupted one', async () => {
  const s = setup(10n * HOLD);
  reserve(s, 'late');
  await s.queue.flush();
  setWritable(s.db, false);
  assert.equal(await settle(s, 'late', HOLD / 2n), false);
  setWritable(s.db, true);
  assert.equal(s.reservations.releaseStale(true), 1, 'the hold row looked stale');
  assert.equal(await s.queue.retry(), true);
  assert.equal(s.accounts.balance('acct_1'), 10n * HOLD - HOLD / 2n, 'the charge is on disk');
  const row = s.db.prepare('SELECT status, error_code, cost_nanos FROM generations WHERE id = ?').get('late') as Record<string, unknown>;
  assert.deepEqual({ ...row }, { status: 'success', error_code: null, cost_nanos: Number(HOLD / 2n) });
  assert.equal(s.reservations.heldFor('acct_1'), 0n);
});

test('a charge the database rejects for its own sake stops counting as in flight', async () => {
  const s = setup(10n * HOLD);
  reserve(s, 'dup');
  assert.equal(await settle(s, 'dup', HOLD / 2n), true);
  // A record the database refuses by a constraint of its own (a trigger stands for one; a
  // settlement under a generation id already settled is skipped, not refused: ledger-store.ts).
  s.db.exec(
    `CREATE TRIGGER refuse_dup2 BEFORE INSERT ON generation_records WHEN NEW.id = 'dup2' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
  );
  reserve(s, 'dup2');
  s.reservations.settling('acct_1', 'hash_1', HOLD, HOLD / 2n);
  const done = s.queue.push(settlement('dup2', HOLD / 2n, false));
  await s.queue.flush();
  assert.equal((await done).committed, false);
  assert.equal(s.queue.failing, false, 'not a storage failure: the gateway keeps serving');
  assert.equal(s.reservations.heldFor('acct_1'), 0n, 'nothing left in flight');
  assert.equal(s.accounts.balance('acct_1'), 10n * HOLD - HOLD / 2n);
});

test('a snapshot read while a write is in flight (its commit may already be in it) is read again at the commit, not moved by it', async () => {
  const base = ledgered(10n * HOLD);
  // The writer thread's window: the batch is committed, its answer not yet heard of here.
  let answer: () => void = () => {};
  const committedNotHeard = new Promise<void>((resolve) => (answer = resolve));
  let written: () => void = () => {};
  const onDisk = new Promise<void>((resolve) => (written = resolve));
  const queue = new SettlementQueue(
    {
      settle: async (holds, batch) => {
        base.ledger.settle(holds, batch);
        written();
        await committedNotHeard;
      },
    },
    { log: () => {} },
  );
  const s: Setup = {
    ...base,
    queue,
    store: new ReservationStore(base.db),
    clock: { now: Date.parse('2026-01-01T00:00:00Z') },
    reservations: null as never,
  };
  s.reservations = new CreditReservations(s.store, queue, { holdMs: 1000, now: () => s.clock.now });
  reserve(s, 'g1');
  s.reservations.settling('acct_1', 'hash_1', HOLD, HOLD);
  const done = queue.push(settlement('g1', HOLD));
  await onDisk;
  // Another process's change is heard of meanwhile: the snapshot is read while g1 is on disk but not heard of.
  s.reservations.forget();
  assert.equal(reserve(s, 'g2'), HOLD);
  answer();
  assert.deepEqual(await done, { committed: true });
  // 10 holds' worth, g1 charged, g2 held: exactly 8 more holds fit, g1's charge counted once.
  for (let i = 3; i <= 10; i++) assert.equal(reserve(s, `g${i}`), HOLD, `g${i}`);
  assert.equal(refusal(() => reserve(s, 'g11')).code, 'insufficient_quota');
});
