import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import type { Stores } from '../../src/store/store-contract.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

// The data behind credit holds (Stores.holds), the same on both engines: the spend state a
// fleet's Redis holds load, and the release of hold rows whose requests never settled.

const DAY1 = '2026-03-01T10:00:00.000Z';
const LATER = '2026-03-01T10:05:00.000Z';

function charge(id: string, costNanos: bigint, createdAt: string): SettlementRecord {
  return {
    id,
    accountId: 'acct_1',
    keyHash: 'k1',
    costNanos,
    holdRowWritten: false,
    model: 'a/m',
    provider: 'p',
    upstreamModel: 'm',
    upstreamId: null,
    dialect: 'chat',
    streamed: false,
    cancelled: false,
    status: 'success',
    errorCode: null,
    finishReason: 'stop',
    nativeFinishReason: null,
    tokensPrompt: 1,
    tokensCompletion: 1,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costBreakdown: null,
    latencyMs: 1,
    firstTokenMs: null,
    attempts: [],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt,
  };
}

async function seed(s: Stores, limitNanos: bigint | null, limitReset: 'daily' | null = null): Promise<void> {
  await s.accounts.createAccount({ id: 'acct_1', name: 'one', accountType: 'user', tier: 'free', defaultModel: null, now: DAY1 });
  await s.accounts.createKey({
    hash: 'k1',
    accountId: 'acct_1',
    name: 'k1',
    label: 'k1',
    limitNanos,
    limitReset,
    isManagement: false,
    expiresAt: null,
    now: DAY1,
  });
  await s.ledger.addEntry('acct_1', 'credit', 10_000n, null, DAY1);
}

contractCase(
  'Stores.holds.loadSpendState: balance, key limit and its usage over the period, and which settling charges the ledger has',
  async (s) => {
    await seed(s, 5_000n, 'daily');
    await s.ledger.settle([], [charge('g1', 1_200n, DAY1)]);
    const days = (): readonly string[] => ['2026-03-01'];
    const state = await s.holds.loadSpendState('k1', ['g1', 'g-unsettled'], days);
    assert.ok(state !== undefined);
    assert.equal(state.balanceNanos, 8_800n);
    assert.equal(state.limitNanos, 5_000n);
    assert.equal(state.limitReset, 'daily');
    assert.equal(state.limitUsageNanos, 1_200n, "the period's usage from the daily key rollup");
    assert.deepEqual(state.committedIds, ['g1']);
    assert.equal(await s.holds.loadSpendState('no-such-key', [], days), undefined);
    return { ...state, committedIds: [...state.committedIds] };
  },
);

contractCase(
  'Stores.holds.releaseStale: expired hold rows go, each recorded as interrupted and charged nothing; live ones stay',
  async (s) => {
    await seed(s, null);
    await s.ledger.settle(
      [
        { id: 'h-dead', accountId: 'acct_1', keyHash: 'k1', amountNanos: 900n, createdAt: DAY1, expiresAt: '2026-03-01T10:01:00.000Z' },
        { id: 'h-live', accountId: 'acct_1', keyHash: 'k1', amountNanos: 900n, createdAt: DAY1, expiresAt: '2026-03-01T11:00:00.000Z' },
      ],
      [],
    );
    assert.equal(await s.holds.releaseStale(LATER, LATER), 1);
    assert.equal(await s.holds.releaseStale(LATER, LATER), 0, 'once');
    const dead = await s.generations.getRecord('h-dead');
    assert.equal(dead?.errorCode, 'interrupted');
    assert.equal(dead?.costNanos, 0n);
    assert.equal(await s.generations.getRecord('h-live'), undefined);
    assert.equal(await s.accounts.balance('acct_1'), 10_000n, 'nothing charged');
    // The live hold is settled as usual later.
    await s.ledger.settle([], [{ ...charge('h-live', 300n, LATER), holdRowWritten: true }]);
    assert.equal(await s.accounts.balance('acct_1'), 9_700n);
    return { status: dead?.status, errorCode: dead?.errorCode, accountId: dead?.accountId, keyHash: dead?.keyHash };
  },
);
