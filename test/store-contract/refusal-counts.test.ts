import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import type { RefusalCount } from '../../src/store/refusal-records.ts';

const count = (keyHash: string, minute: string, reason: string, n: number, accountId = 'acct_1'): RefusalCount => ({
  accountId,
  keyHash,
  minute,
  reason,
  count: n,
});

contractCase(
  'refusal counts: one row per key × minute × reason, summed across batches, pages newest first, filters, pruned after 7 days',
  async (s) => {
    // Counts alone in a batch, then beside nothing else again: the same rows add up.
    await s.ledger.settle(
      [],
      [],
      [count('k1', '2026-03-01T10:00', 'rate_limited', 3), count('k1', '2026-03-01T10:00', 'model_not_found', 1)],
    );
    await s.ledger.settle(
      [],
      [],
      [count('k1', '2026-03-01T10:00', 'rate_limited', 4), count('k2', '2026-03-01T10:01', 'insufficient_credits', 2)],
    );
    await s.ledger.settle([], [], [count('k3', '2026-03-01T10:02', 'rate_limited', 5, 'acct_2')]);
    const all = await s.refusals.list({}, null, 10);
    assert.deepEqual(
      all.map((r) => [r.minute, r.keyHash, r.reason, r.count]),
      [
        ['2026-03-01T10:02', 'k3', 'rate_limited', 5],
        ['2026-03-01T10:01', 'k2', 'insufficient_credits', 2],
        ['2026-03-01T10:00', 'k1', 'rate_limited', 7],
        ['2026-03-01T10:00', 'k1', 'model_not_found', 1],
      ],
    );
    const first = await s.refusals.list({}, null, 2);
    const last = first[1]!;
    const second = await s.refusals.list({}, [last.minute, last.keyHash, last.reason], 2);
    assert.deepEqual([...first, ...second], all, 'keyset pages walk the same rows');
    const ofAccount = await s.refusals.list({ accountId: 'acct_2' }, null, 10);
    assert.deepEqual(
      ofAccount.map((r) => r.keyHash),
      ['k3'],
    );
    const ofKey = await s.refusals.list({ keyHash: 'k1', from: '2026-03-01T10:00', to: '2026-03-01T10:00' }, null, 10);
    assert.deepEqual(
      ofKey.map((r) => r.reason),
      ['rate_limited', 'model_not_found'],
    );
    // Counts written 8 days later remove those older than 7 days.
    await s.ledger.settle([], [], [count('k1', '2026-03-09T10:00', 'rate_limited', 1)]);
    const kept = await s.refusals.list({}, null, 10);
    assert.deepEqual(
      kept.map((r) => r.minute),
      ['2026-03-09T10:00'],
    );
    return { all, kept };
  },
);
