// node bench/postgres-settle-batch.ts [--src DIR] [--batches N]
//
// PostgresLedger.settle on the test harness's Postgres (test/support/postgres-server.ts: a
// loopback server, fsync off): statements sent per batch (counted on the pool's clients)
// and time per batch, for batches of 1 and of 64 records over 50 accounts × 4 keys and 4
// models. --src points at another checkout's src/ (e.g. the commit before a change), so the
// same measurement runs on the code before and after it.

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { seededRandom } from '../src/canonical/seeded-random.test-util.ts';
import { createTestDatabase, stopPostgres } from '../test/support/postgres-server.ts';

const { values: flags } = parseArgs({ options: { src: { type: 'string' }, batches: { type: 'string' } } });
const SRC = resolve(flags.src ?? join(import.meta.dirname, '..', 'src'));
const BATCHES = Number(flags.batches ?? 200);

const { createPostgresPool } = await import(join(SRC, 'store/postgres/postgres-pool.ts'));
const { migratePostgres } = await import(join(SRC, 'store/postgres/migrate-postgres.ts'));
const { PostgresLedger } = await import(join(SRC, 'store/postgres/postgres-ledger.ts'));

const pool: pg.Pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
// Every query of a settle goes through a pool client: counted here.
let statements = 0;
pool.on('connect', (client) => {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements += 1;
    return query(...args);
  };
});
await migratePostgres(pool);
const now = new Date().toISOString();
const keys: Array<{ account: string; hash: string }> = [];
for (let a = 0; a < 50; a++) {
  await pool.query(`INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES ($1, $1, 'user', 'free', $2, $3)`, [`acct_${a}`, String(10n ** 15n), now]);
  for (let k = 0; k < 4; k++) {
    const hash = `${a}-${k}`.padEnd(64, '0');
    await pool.query(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, $2, 'k', 'l', $3)`, [hash, `acct_${a}`, now]);
    keys.push({ account: `acct_${a}`, hash });
  }
}
const random = seededRandom(7);
const models = ['openai/gpt-x', 'anthropic/claude-y', 'google/gemini-z', 'switchyard/sim-pro'];
let n = 0;
const record = () => {
  const k = keys[Math.floor(random() * keys.length)]!;
  const model = models[Math.floor(random() * models.length)]!;
  const i = n++;
  return {
    id: `gen-${i.toString(36).padStart(8, '0')}`, accountId: k.account, keyHash: k.hash, model, provider: model.split('/')[0],
    upstreamModel: model, upstreamId: `up-${i}`, dialect: 'chat', streamed: i % 2 === 0, cancelled: false, status: 'success',
    errorCode: null, finishReason: 'stop', nativeFinishReason: 'stop', tokensPrompt: 500, tokensCompletion: 200, tokensCacheRead: 0,
    tokensCacheWrite: 0, tokensReasoning: 0, costNanos: 1234n, costBreakdown: { prompt: '0.0000005' }, latencyMs: 800, firstTokenMs: 200,
    attempts: [{ provider: 'p', endpoint: 'e', status: 200, ms: 800 }], httpReferer: null, xTitle: i % 3 === 0 ? 'App' : null,
    endUser: null, createdAt: now, holdRowWritten: false,
  };
};
const ledger = new PostgresLedger(pool);
for (const size of [1, 64]) {
  await ledger.settle([], Array.from({ length: size }, record)); // warm-up: the connection, the plans
  statements = 0;
  const t0 = performance.now();
  for (let b = 0; b < BATCHES; b++) await ledger.settle([], Array.from({ length: size }, record));
  const ms = (performance.now() - t0) / BATCHES;
  process.stdout.write(`batch of ${size}: ${(statements / BATCHES).toFixed(1)} statements, ${ms.toFixed(2)} ms per batch (${Math.round((size * 1000) / ms).toLocaleString('en')} records/s)\n`);
}
process.stdout.write(`(src: ${SRC})\n`);
await pool.end();
await stopPostgres();
