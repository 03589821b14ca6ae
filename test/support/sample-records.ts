import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

// Generation records as the gateway writes them, for the size benchmark, the 10 M-record
// benchmark and the tests that bound a record's size: seeded (the same records every run),
// with the mix of a busy gateway — 50 accounts with 4 keys each, 24 models over 6
// providers, 1 request in 20 failed over to a second provider, 1 in 25 an error, an app
// title on a third, a user id on a tenth, every priced answer with its cost breakdown.

/** A small seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SAMPLE_ACCOUNTS = 50;
const PROVIDERS = ['openai', 'anthropic', 'google', 'bedrock', 'mistral', 'groq'];
const MODELS = Array.from({ length: 24 }, (_, i) => `${PROVIDERS[i % 6]}/model-${['mini', 'large', 'pro', 'flash'][i % 4]}-${i}`);
const TITLES = ['Acme Chat', 'Support Bot', 'Docs Search', 'Code Review Assistant'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export const sampleAccountId = (i: number) => `acct_${(i % SAMPLE_ACCOUNTS).toString(36).padStart(6, '0')}`;
const KEY_HASHES = Array.from({ length: SAMPLE_ACCOUNTS * 4 }, (_, i) =>
  createHash('sha256')
    .update(`key-${Math.floor(i / 4)}-${i % 4}`)
    .digest('hex'),
);
export const sampleKeyHash = (account: number, key: number) => KEY_HASHES[(account % SAMPLE_ACCOUNTS) * 4 + key]!;

function text(rnd: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[(rnd() * 64) | 0];
  return s;
}
const usd = (nanos: number) => (nanos === 0 ? '0' : (nanos / 1e9).toFixed(9).replace(/0+$/, ''));

/** `count` records from `startMs`, `stepMs` apart. */
export function* sampleRecords(
  count: number,
  opts: { seed?: number; startMs?: number; stepMs?: number } = {},
): Generator<SettlementRecord> {
  const rnd = seeded(opts.seed ?? 1);
  const start = opts.startMs ?? Date.parse('2026-01-01T00:00:00.000Z');
  const step = opts.stepMs ?? 250;
  for (let i = 0; i < count; i++) {
    const at = start + i * step + Math.floor(rnd() * step);
    const account = Math.floor(rnd() * SAMPLE_ACCOUNTS);
    const m = Math.floor(rnd() * MODELS.length);
    const model = MODELS[m]!;
    const provider = PROVIDERS[m % 6]!;
    const failedOver = rnd() < 0.05;
    const error = !failedOver && rnd() < 0.04;
    const prompt = 200 + Math.floor(rnd() * 3000);
    const completion = error ? 0 : 50 + Math.floor(rnd() * 800);
    const cost = error ? 0 : prompt * 150 + completion * 600;
    const ms = 300 + Math.floor(rnd() * 4000);
    const attempts: unknown[] = [];
    if (failedOver)
      attempts.push({
        model,
        provider: PROVIDERS[(m + 1) % 6],
        endpoint: `${PROVIDERS[(m + 1) % 6]}-main`,
        status: 503,
        errorCode: 'upstream_unavailable',
        ms: 120,
      });
    attempts.push({
      model,
      provider,
      endpoint: `${provider}-main`,
      status: error ? 500 : 200,
      errorCode: error ? 'upstream_error' : null,
      ms: ms - 40,
    });
    yield {
      id: `gen-${Math.floor(at / 1000)}-${text(rnd, 14)}`,
      accountId: sampleAccountId(account),
      keyHash: sampleKeyHash(account, Math.floor(rnd() * 4)),
      model,
      provider,
      upstreamModel: model.slice(model.indexOf('/') + 1),
      upstreamId: error ? null : `chatcmpl-${text(rnd, 29)}`,
      dialect: rnd() < 0.7 ? 'chat' : 'messages',
      streamed: rnd() < 0.6,
      cancelled: false,
      status: error ? 'error' : 'success',
      errorCode: error ? 'upstream_error' : null,
      finishReason: error ? null : 'stop',
      nativeFinishReason: error ? null : 'stop',
      tokensPrompt: prompt,
      tokensCompletion: completion,
      tokensCacheRead: rnd() < 0.3 ? Math.floor(prompt / 2) : 0,
      tokensCacheWrite: 0,
      tokensReasoning: 0,
      costNanos: BigInt(cost),
      costBreakdown: error
        ? null
        : { prompt: usd(prompt * 150), completion: usd(completion * 600), cache_read: '0', cache_write: '0', request: '0', image: '0' },
      latencyMs: ms,
      firstTokenMs: error ? null : Math.floor(ms / 4),
      attempts,
      httpReferer: rnd() < 0.33 ? 'https://acme.example.com/' : null,
      xTitle: rnd() < 0.33 ? TITLES[Math.floor(rnd() * TITLES.length)]! : null,
      endUser: rnd() < 0.1 ? `user-${Math.floor(rnd() * 10_000)}` : null,
      createdAt: new Date(at).toISOString(),
      cacheHit: false,
      holdRowWritten: false,
    };
  }
}

/** The sample's accounts and keys, so that settlements find their rows (balance and key usage move). */
export function seedSampleAccounts(db: DatabaseSync, now = '2026-01-01T00:00:00.000Z'): void {
  const account = db.prepare(
    `INSERT OR IGNORE INTO accounts (id, name, account_type, balance_nanos, created_at) VALUES (?, ?, 'user', 1000000000000000, ?)`,
  );
  const key = db.prepare('INSERT OR IGNORE INTO api_keys (hash, account_id, name, label, created_at) VALUES (?, ?, ?, ?, ?)');
  for (let a = 0; a < SAMPLE_ACCOUNTS; a++) {
    account.run(sampleAccountId(a), `Account ${a}`, now);
    for (let k = 0; k < 4; k++) key.run(sampleKeyHash(a, k), sampleAccountId(a), `key ${k}`, `sk-sy-v1-${k}...`, now);
  }
}
