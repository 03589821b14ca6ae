import type { DatabaseSync } from 'node:sqlite';
import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Endpoint, ModelInfo } from '../catalog/types.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import { AccountStore } from '../store/sqlite/account-store.ts';
import { LedgerStore } from '../store/sqlite/ledger-store.ts';
import type { SettlementRecord, SettlementWriter } from '../store/ledger-records.ts';
import { openDatabase } from '../store/sqlite/open-database.ts';
import { compilePricing } from '../money/pricing.ts';

// Fixtures for the money code's unit tests: a real in-memory database with one account and
// one key, an endpoint with simple prices, and settlement records.

export const NOW = '2026-01-01T00:00:00.000Z';

export interface Ledgered {
  db: DatabaseSync;
  accounts: AccountStore;
  ledger: LedgerStore;
  auth: AuthContext;
}

/** One account with `balanceNanos` (as a credit row) and one key, optionally with a limit. */
export function ledgered(balanceNanos: bigint, limitNanos: bigint | null = null): Ledgered {
  const db = openDatabase(':memory:');
  const accounts = new AccountStore(db);
  const ledger = new LedgerStore(db);
  accounts.createAccount({ id: 'acct_1', name: 'a', accountType: 'user', tier: 'tier2', defaultModel: null, now: NOW });
  if (balanceNanos > 0n) ledger.addEntry('acct_1', 'credit', balanceNanos, null, NOW);
  const key = accounts.createKey({
    hash: 'hash_1',
    accountId: 'acct_1',
    name: 'k',
    label: 'sk-sy-v1-x...y',
    limitNanos,
    isManagement: false,
    expiresAt: null,
    now: NOW,
  });
  return { db, accounts, ledger, auth: { key, account: accounts.getAccount('acct_1')! } };
}

/** The ledger's settlement on this thread, as the queue takes it (the gateway's runs in its writer thread). */
export function writerOf(ledger: LedgerStore): SettlementWriter {
  return { settle: async (holds, batch) => ledger.settle(holds, batch) };
}

/** Writes fail (SQLITE_READONLY) until called again with true. */
export function setWritable(db: DatabaseSync, on: boolean): void {
  db.exec(`PRAGMA query_only = ${on ? 'OFF' : 'ON'}`);
}

export function endpoint(prompt: string, completion: string): Endpoint {
  const pricing = { prompt, completion };
  return {
    id: 'p/m',
    modelId: 'a/m',
    upstreamModel: 'm',
    pricing,
    compiledPricing: compilePricing(pricing, 'none'),
    contextLength: 10_000,
    dataCollection: 'allow',
    zdr: false,
    supportedParameters: new Set(),
    provider: { id: 'p', kind: 'openai', name: 'p', baseUrl: 'http://x', timeoutMs: 1, cacheFamily: 'none' },
  };
}

export function plan(prompt = '0.000001', completion = '0.000002'): PlannedAttempt[] {
  return [{ model: { id: 'a/m' } as ModelInfo, endpoint: endpoint(prompt, completion) }];
}

export function request(maxOutputTokens = 1000): CanonicalRequest {
  return { models: [{ model: 'a/m' }], messages: [], sampling: {}, stream: false, extra: {}, maxOutputTokens };
}

export function settlement(id: string, costNanos: bigint, holdRowWritten = true, keyHash = 'hash_1'): SettlementRecord {
  return {
    id,
    accountId: 'acct_1',
    keyHash,
    costNanos,
    holdRowWritten,
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
    nativeFinishReason: 'stop',
    tokensPrompt: 1,
    tokensCompletion: 1,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costBreakdown: null,
    latencyMs: 1,
    firstTokenMs: 1,
    attempts: [],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt: NOW,
  };
}
