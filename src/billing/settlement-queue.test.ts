import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HoldRecord, SettlementRecord } from '../store/ledger-records.ts';
import type { RefusalCount } from '../store/refusal-records.ts';
import { NOW, ledgered, setWritable, settlement } from './billing-fixtures.test-util.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import { isStorageFailure, SettlementQueue, storageUnavailable } from './settlement-queue.ts';

/** A ledger that records what it was asked to write, and fails on demand. */
class FakeLedger {
  calls: Array<{ holds: string[]; records: string[] }> = [];
  refusals: RefusalCount[][] = [];
  /** Thrown by every write while set. */
  failWith: Error | null = null;
  /** Thrown only by writes that include this record id. */
  poison: { id: string; error: unknown } | null = null;
  async settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals: readonly RefusalCount[] = []): Promise<void> {
    if (this.failWith !== null) throw this.failWith;
    if (this.poison !== null && batch.some((r) => r.id === this.poison!.id)) throw this.poison.error;
    if (holds.length > 0 || batch.length > 0) this.calls.push({ holds: holds.map((h) => h.id), records: batch.map((r) => r.id) });
    if (refusals.length > 0) this.refusals.push(refusals.map((r) => ({ ...r })));
  }
}

const readonlyError = (): Error => Object.assign(new Error('attempt to write a readonly database'), { errcode: 8 });
const hold = (id: string): HoldRecord => ({ id, accountId: 'acct_1', keyHash: 'hash_1', amountNanos: 5n, createdAt: NOW, expiresAt: NOW });

function queueOn(ledger: FakeLedger, logs: string[] = []): SettlementQueue {
  return new SettlementQueue(ledger, { log: (m) => logs.push(m), firstRetryMs: 1, maxRetryMs: 4 });
}

/** Resolves with the next committed batch's record ids. */
function nextCommit(queue: SettlementQueue): Promise<string[]> {
  return new Promise((resolve) => {
    let done = false;
    queue.onCommitted((batch) => {
      if (done) return;
      done = true;
      resolve(batch.map((r) => r.id));
    });
  });
}

test('records pushed in the same turn share one write; each waiter learns it committed', async () => {
  const ledger = new FakeLedger();
  const queue = queueOn(ledger);
  const committed = nextCommit(queue);
  queue.pushHold(hold('h1'));
  const results = await Promise.all([queue.push(settlement('a', 1n)), queue.push(settlement('b', 2n))]);
  assert.deepEqual(results, [{ committed: true }, { committed: true }]);
  assert.deepEqual(ledger.calls, [{ holds: ['h1'], records: ['a', 'b'] }]);
  assert.deepEqual(await committed, ['a', 'b']);
  assert.equal(queue.failing, false);
});

test('a hold settled before its row was written is never written, nor removed', async () => {
  const ledger = new FakeLedger();
  const queue = queueOn(ledger);
  queue.pushHold(hold('a'));
  const record = settlement('a', 1n, true);
  await queue.push(record);
  assert.equal(record.holdRowWritten, false);
  assert.deepEqual(ledger.calls, [{ holds: [], records: ['a'] }]);
});

test('when the database refuses writes: waiters learn it, balances hear nothing, records stay queued and are retried on a timer', async () => {
  const ledger = new FakeLedger();
  const logs: string[] = [];
  const queue = queueOn(ledger, logs);
  const heard: string[][] = [];
  queue.onCommitted((batch) => heard.push(batch.map((r) => r.id)));
  ledger.failWith = readonlyError();
  queue.pushHold(hold('h1'));
  const result = await queue.push(settlement('a', 7n));
  assert.equal(result.committed, false);
  assert.match(String((result as { error: Error }).error.message), /readonly/);
  assert.deepEqual(heard, [], 'a charge never written must not move in-memory balances');
  assert.equal(queue.failing, true);
  assert.equal(queue.queued, 1);
  assert.equal(await queue.retry(), false, 'still failing');
  assert.equal(logs.filter((l) => l.startsWith('settlement failed')).length, 1, 'the outage is logged once, not at every retry');

  const recovered = nextCommit(queue);
  ledger.failWith = null;
  assert.deepEqual(await recovered, ['a'], 'the retry timer writes the queued record');
  assert.deepEqual(ledger.calls, [{ holds: ['h1'], records: ['a'] }]);
  assert.equal(queue.failing, false);
  assert.equal(queue.queued, 0);
  assert.ok(logs.some((l) => /written again/.test(l)));
});

test("a batch whose connection to Postgres was lost is sent again at once (it may have committed): its waiters learn the retry's outcome", async () => {
  const ledger = new FakeLedger();
  let cuts = 1;
  const settle = ledger.settle.bind(ledger);
  ledger.settle = async (holds, batch) => {
    if (cuts-- > 0) throw new SharedStateUnavailable('postgres', 'Connection terminated unexpectedly');
    return settle(holds, batch);
  };
  const queue = queueOn(ledger);
  assert.deepEqual(await queue.push(settlement('a', 1n)), { committed: true });
  assert.deepEqual(ledger.calls, [{ holds: [], records: ['a'] }]);
  assert.equal(queue.failing, false);
});

test('Postgres unreachable is a storage failure: the records are kept and retried, never dropped', async () => {
  const ledger = new FakeLedger();
  const dropped: string[] = [];
  const queue = queueOn(ledger);
  queue.onDropped((r) => dropped.push(r.id));
  ledger.failWith = new SharedStateUnavailable('postgres', 'connect ECONNREFUSED');
  assert.equal((await queue.push(settlement('a', 1n))).committed, false);
  assert.equal(queue.failing, true);
  assert.equal(queue.queued, 1);
  const recovered = nextCommit(queue);
  ledger.failWith = null;
  assert.deepEqual(await recovered, ['a']);
  assert.deepEqual(dropped, []);
});

test('records that failed are written before those queued after them, and their waiters are told only once', async () => {
  const ledger = new FakeLedger();
  const queue = queueOn(ledger);
  ledger.failWith = readonlyError();
  const first = queue.push(settlement('a', 1n));
  assert.equal((await first).committed, false);
  ledger.failWith = null;
  const second = queue.push(settlement('b', 1n));
  assert.equal(await queue.retry(), true, 'a request arriving retries at once');
  assert.deepEqual(await second, { committed: true });
  assert.deepEqual(ledger.calls, [{ holds: [], records: ['a', 'b'] }]);
});

test('a hold row that failed is written again, unless its settlement committed meanwhile', async () => {
  const ledger = new FakeLedger();
  const queue = queueOn(ledger);
  ledger.failWith = readonlyError();
  queue.pushHold(hold('h1'));
  queue.pushHold(hold('h2'));
  await queue.flush();
  assert.equal(queue.failing, true);
  ledger.failWith = null;
  // h1's request finishes: its row was never written, so it is not written now.
  const r = settlement('h1', 3n, true);
  const done = queue.push(r);
  await queue.flush();
  assert.deepEqual(await done, { committed: true });
  assert.equal(r.holdRowWritten, false);
  assert.deepEqual(ledger.calls, [{ holds: ['h2'], records: ['h1'] }]);
  assert.equal(queue.failing, false);
});

test('one record the database rejects for its own sake does not take the others with it, nor close the gateway', async () => {
  const ledger = new FakeLedger();
  const logs: string[] = [];
  const queue = queueOn(ledger, logs);
  const dropped: string[] = [];
  queue.onDropped((r) => dropped.push(r.id));
  ledger.poison = { id: 'bad', error: Object.assign(new Error('UNIQUE constraint failed: generations.id'), { errcode: 1555 }) };
  const [good, bad, other] = await Promise.all([
    queue.push(settlement('good', 1n)),
    queue.push(settlement('bad', 1n)),
    queue.push(settlement('other', 1n)),
  ]);
  assert.deepEqual(good, { committed: true });
  assert.deepEqual(other, { committed: true });
  assert.equal(bad.committed, false);
  assert.deepEqual(
    ledger.calls.map((c) => c.records),
    [['good'], ['other']],
  );
  assert.equal(queue.failing, false);
  assert.equal(queue.queued, 0, 'a record that can never be written is dropped');
  assert.ok(logs.some((l) => /settlement bad dropped/.test(l)));
  assert.deepEqual(dropped, ['bad'], 'listeners hear of the dropped record');
});

test('close writes what it can and says what it could not', async () => {
  const ledger = new FakeLedger();
  const logs: string[] = [];
  const queue = queueOn(ledger, logs);
  ledger.failWith = readonlyError();
  void queue.push(settlement('a', 1n));
  await queue.close();
  assert.ok(logs.some((l) => /1 settlement\(s\) could not be written before shutdown/.test(l)));
});

test('storage failures are told from record failures by the SQLite result code of real errors', () => {
  const { db, ledger } = ledgered(10n);
  setWritable(db, false);
  assert.throws(
    () => ledger.settle([], [settlement('x', 1n)]),
    (e) => isStorageFailure(e),
  );
  setWritable(db, true);
  // Disk full: the database may not grow.
  db.exec('CREATE TABLE filler (x BLOB)');
  const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  assert.throws(
    () => {
      for (;;) db.exec('INSERT INTO filler VALUES (randomblob(2000))');
    },
    (e) => isStorageFailure(e) && /full/.test((e as Error).message),
  );
  // Through the ledger's transaction: SQLite rolls back by itself on a full disk, and the
  // error that reaches the queue must still be the disk-full one, not the rollback's.
  const big = { ...settlement('z', 1n), endUser: 'u'.repeat(12_000) };
  assert.throws(
    () => ledger.settle([], [big]),
    (e) => isStorageFailure(e) && /full/.test((e as Error).message),
  );
  assert.equal(db.isTransaction, false);
  db.exec('PRAGMA max_page_count = 1000000');
  ledger.settle([], [big]);
  ledger.settle([], [settlement('y', 1n)]);
  db.exec(`CREATE TRIGGER refuse_w BEFORE INSERT ON ledger WHEN NEW.generation_id = 'w' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
  assert.throws(
    () => ledger.settle([], [settlement('w', 1n)]),
    (e) => !isStorageFailure(e),
    "a record a constraint refuses is the record's fault",
  );
  assert.equal(isStorageFailure(new Error('plain')), false);
  const refusal = storageUnavailable();
  assert.equal(refusal.status, 503);
  assert.equal(refusal.code, 'storage_unavailable');
  assert.ok(refusal.headers?.['retry-after']);
});

/** A ledger whose writes wait until the test lets each one go. */
class GatedLedger {
  calls: string[][] = [];
  inFlight = 0;
  maxInFlight = 0;
  private gates: Array<() => void> = [];
  private arrived: Array<() => void> = [];
  async settle(_holds: readonly HoldRecord[], batch: readonly SettlementRecord[]): Promise<void> {
    this.calls.push(batch.map((r) => r.id));
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    for (const a of this.arrived.splice(0)) a();
    await new Promise<void>((resolve) => this.gates.push(resolve));
    this.inFlight--;
  }
  /** Resolves once a write is waiting. */
  waiting(): Promise<void> {
    return this.gates.length > 0 ? Promise.resolve() : new Promise((resolve) => this.arrived.push(resolve));
  }
  release(): void {
    this.gates.shift()?.();
  }
}

test('while one batch is in flight the next accumulates, and goes as soon as it committed: one write at a time, in order', async () => {
  const ledger = new GatedLedger();
  const queue = new SettlementQueue(ledger, { log: () => {} });
  const heard: string[][] = [];
  queue.onCommitted((batch) => heard.push(batch.map((r) => r.id)));
  const a = queue.push(settlement('a', 1n));
  await ledger.waiting();
  const b = queue.push(settlement('b', 1n));
  const c = queue.push(settlement('c', 1n));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ledger.calls, [['a']], 'b and c wait for a');
  assert.equal(queue.inDoubt, true);
  ledger.release();
  assert.deepEqual(await a, { committed: true });
  await ledger.waiting();
  assert.deepEqual(ledger.calls, [['a'], ['b', 'c']]);
  assert.deepEqual(heard, [['a']], 'b and c are heard of only once committed');
  ledger.release();
  assert.deepEqual(await Promise.all([b, c]), [{ committed: true }, { committed: true }]);
  assert.deepEqual(heard, [['a'], ['b', 'c']]);
  assert.equal(ledger.maxInFlight, 1);
  await queue.flush();
  assert.equal(queue.inDoubt, false, 'nothing in flight any more');
});

test("a record pushed by a waiter's continuation, however many ticks later, is written", { timeout: 30_000 }, async () => {
  const queue = new SettlementQueue({ settle: async () => {} }, { log: () => {} });
  for (let hops = 0; hops < 8; hops++) {
    const next = queue.push(settlement(`first-${hops}`, 1n)).then(async () => {
      for (let i = 0; i < hops; i++) await Promise.resolve();
      return queue.push(settlement(`second-${hops}`, 1n));
    });
    assert.deepEqual(await next, { committed: true }, `pushed ${hops} ticks after its waiter heard`);
  }
});

test('refusals are counted per key, minute and reason into the next batch, no row each; counts the database refused are kept and added to', async () => {
  const ledger = new FakeLedger();
  const queue = queueOn(ledger);
  const at = Date.parse('2026-03-01T10:00:30Z');
  for (let i = 0; i < 500; i++) queue.countRefusal('acct_1', 'hash_1', 'rate_limited', at + i);
  queue.countRefusal('acct_1', 'hash_1', 'model_not_found', at);
  queue.countRefusal('acct_1', 'hash_1', 'rate_limited', at + 60_000);
  await queue.flush();
  assert.deepEqual(ledger.refusals, [
    [
      { accountId: 'acct_1', keyHash: 'hash_1', minute: '2026-03-01T10:00', reason: 'rate_limited', count: 500 },
      { accountId: 'acct_1', keyHash: 'hash_1', minute: '2026-03-01T10:00', reason: 'model_not_found', count: 1 },
      { accountId: 'acct_1', keyHash: 'hash_1', minute: '2026-03-01T10:01', reason: 'rate_limited', count: 1 },
    ],
  ]);
  // The database refuses writes: the counts wait, and more are added to them.
  ledger.failWith = readonlyError();
  queue.countRefusal('acct_1', 'hash_1', 'rate_limited', at);
  await queue.flush();
  assert.equal(queue.failing, true);
  queue.countRefusal('acct_1', 'hash_1', 'rate_limited', at);
  ledger.failWith = null;
  assert.equal(await queue.retry(), true);
  assert.deepEqual(ledger.refusals[1], [
    { accountId: 'acct_1', keyHash: 'hash_1', minute: '2026-03-01T10:00', reason: 'rate_limited', count: 2 },
  ]);
  assert.equal(queue.failing, false);
});

function journalQueueOn(ledger: FakeLedger, holdJournalMs: number): SettlementQueue {
  return new SettlementQueue(ledger, { log: () => {}, firstRetryMs: 1, maxRetryMs: 4, holdJournalMs });
}

/** Resolves once the ledger was asked to write `n` batches (polled on the event loop's turns, no fixed delay). */
async function writes(ledger: FakeLedger, n: number): Promise<void> {
  while (ledger.calls.length < n) await new Promise((resolve) => setImmediate(resolve));
}

test('the journal: a hold row is not waited for, rides with the next settlement batch, else goes when its interval ends', async () => {
  const ledger = new FakeLedger();
  const queue = journalQueueOn(ledger, 500);
  queue.pushHold(hold('h1'));
  assert.equal(queue.holdWritten('h1'), null, 'the admission has nothing to wait for');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(ledger.calls, [], 'a hold row alone does not wake the writer');
  // A settlement's batch carries every queued hold row.
  await queue.push(settlement('a', 1n));
  assert.deepEqual(ledger.calls, [{ holds: ['h1'], records: ['a'] }]);
  // With no batch to ride, the journal's one timer writes it.
  queue.pushHold(hold('h2'));
  queue.pushHold(hold('h3'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ledger.calls.length, 1, 'not at once');
  await writes(ledger, 2);
  assert.deepEqual(ledger.calls[1], { holds: ['h2', 'h3'], records: [] }, 'both rows in one write');
  await queue.close();
});

test('the journal: hold rows whose write failed are retried with the settlements; new rows do not keep the gateway failing', async () => {
  const ledger = new FakeLedger();
  const queue = journalQueueOn(ledger, 60_000);
  queue.pushHold(hold('h1'));
  ledger.failWith = readonlyError();
  const failed = await queue.push(settlement('a', 1n, true));
  assert.equal(failed.committed, false);
  // h1 rode with the refused batch: kept and retried, with h2 queued meanwhile.
  queue.pushHold(hold('h2'));
  assert.equal(await queue.retry(), false);
  assert.equal(queue.failing, true);
  ledger.failWith = null;
  assert.equal(await queue.retry(), true, 'the queued settlement and the row written: serving again');
  assert.deepEqual(ledger.calls, [{ holds: ['h1', 'h2'], records: ['a'] }]);
  // A row queued after recovery waits for its interval; the queue is not failing meanwhile.
  queue.pushHold(hold('h3'));
  assert.equal(queue.failing, false);
  await queue.close();
  assert.deepEqual(ledger.calls.at(-1), { holds: ['h3'], records: [] }, 'close writes what the journal still holds');
});
