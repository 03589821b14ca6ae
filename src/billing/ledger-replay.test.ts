import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ledgered, NOW, settlement } from './billing-fixtures.test-util.ts';
import type { HoldRecord } from '../store/ledger-records.ts';

// A batch the writer thread may have committed before it died is written again as a
// replay (store/sqlite/sqlite-writer/): what is already there is skipped, so nothing is charged twice.

const hold = (id: string): HoldRecord => ({ id, accountId: 'acct_1', keyHash: 'hash_1', amountNanos: 50n, createdAt: NOW, expiresAt: NOW });

function figures(s: ReturnType<typeof ledgered>) {
  const one = (sql: string): number => Number((s.db.prepare(sql).get() as { n: number | bigint }).n);
  return {
    balance: s.accounts.balance('acct_1'),
    charges: one("SELECT count(*) AS n FROM ledger WHERE kind = 'charge'"),
    requests: one('SELECT coalesce(sum(requests), 0) AS n FROM usage_daily'),
    globalRequests: one('SELECT coalesce(sum(requests), 0) AS n FROM usage_daily_global'),
    holds: one('SELECT count(*) AS n FROM reservations'),
    keyUsage: one("SELECT usage_nanos AS n FROM api_keys WHERE hash = 'hash_1'"),
  };
}

test('a batch replayed after it committed changes nothing; one that did not commit is written whole', () => {
  const s = ledgered(1000n);
  s.ledger.settle([hold('h1')], []);
  const batch = [settlement('h1', 7n), settlement('g2', 3n, false)];
  s.ledger.settle([hold('h3')], batch);
  const once = figures(s);
  assert.deepEqual(once, { balance: 990n, charges: 2, requests: 2, globalRequests: 2, holds: 1, keyUsage: 10 });

  s.ledger.settle([hold('h3')], batch, [], true);
  assert.deepEqual(figures(s), once, 'the replay of a committed batch is a no-op');

  // Not committed before: the replay writes it, hold row and all, like a first write.
  s.ledger.settle([hold('h4')], [settlement('h3', 5n)], [], true);
  assert.deepEqual(figures(s), { balance: 985n, charges: 3, requests: 3, globalRequests: 3, holds: 1, keyUsage: 15 });
});

test('a replayed record whose hold row another batch wrote removes it even when it thinks none was written', () => {
  const s = ledgered(1000n);
  // The batch that died wrote the hold row; the queue, told it failed, settles the request as if it had not.
  s.ledger.settle([hold('h1')], []);
  s.ledger.settle([], [settlement('h1', 4n, false)], [], true);
  assert.equal(figures(s).holds, 0);
  assert.equal(s.accounts.balance('acct_1'), 996n);
});
