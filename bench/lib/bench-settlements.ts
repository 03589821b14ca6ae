// The settlement records the ledger benchmarks write (bench/settlement-throughput.ts on
// SQLite, bench/postgres-settle-batch.ts on Postgres): seeded, spread over the given keys
// and four models, every third one with an app title, so both engines write the same rows.

import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';

export interface BenchKey {
  account: string;
  hash: string;
}

/** 50 accounts (`acct_<n>`) of 4 keys each, the keys' hashes padded to 64 characters. */
export function benchKeys(accounts = 50, keysPerAccount = 4): BenchKey[] {
  const keys: BenchKey[] = [];
  for (let a = 0; a < accounts; a++)
    for (let k = 0; k < keysPerAccount; k++) keys.push({ account: `acct_${a}`, hash: `${a}-${k}`.padEnd(64, '0') });
  return keys;
}

/** A maker of records, each for a seeded key and model, stamped with `createdAt()`. */
export function settlementRecords(keys: readonly BenchKey[], createdAt: () => string = () => new Date().toISOString()) {
  const random = seededRandom(7);
  const models = ['openai/gpt-x', 'anthropic/claude-y', 'google/gemini-z', 'switchyard/sim-pro'];
  let n = 0;
  return () => {
    const k = keys[Math.floor(random() * keys.length)]!;
    const model = models[Math.floor(random() * models.length)]!;
    const i = n++;
    return {
      id: `gen-${i.toString(36).padStart(8, '0')}`,
      accountId: k.account,
      keyHash: k.hash,
      model,
      provider: model.split('/')[0]!,
      upstreamModel: model,
      upstreamId: `up-${i}`,
      dialect: 'chat',
      streamed: i % 2 === 0,
      cancelled: false,
      status: 'success',
      errorCode: null,
      finishReason: 'stop',
      nativeFinishReason: 'stop',
      tokensPrompt: 500,
      tokensCompletion: 200,
      tokensCacheRead: 0,
      tokensCacheWrite: 0,
      tokensReasoning: 0,
      costNanos: 1234n,
      costBreakdown: { prompt: '0.0000005' },
      latencyMs: 800,
      firstTokenMs: 200,
      attempts: [{ provider: 'p', endpoint: 'e', status: 200, ms: 800 }],
      httpReferer: null,
      xTitle: i % 3 === 0 ? 'App' : null,
      endUser: null,
      createdAt: createdAt(),
      holdRowWritten: false,
    };
  };
}
