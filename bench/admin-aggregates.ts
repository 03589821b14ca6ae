// npm run bench:admin [-- --records N --runs N]
//
// The admin API's reads against a large database: fills a temporary SQLite database with
// 1,000,000 generation records (and their daily rollups) spread over 90 days, many
// accounts, keys, models, providers and app titles, then times over real HTTP (a gateway
// on loopback, the real composition root) the 30-day usage aggregates (all accounts and
// one), the first page of the generation list under several filter combinations, and an
// account's activity first page (management key). Prints p50 and max per query against
// the targets: aggregates and generation pages < 100 ms, activity < 300 ms.
//
// Fill: bench/lib/fill-records.ts (the records as settlement stores them, bulk-inserted; the
// rollups summed in memory and written once). The random draws are seeded, so every run
// builds the same database.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load-config.ts';
import { buildApp } from '../src/server/build-app.ts';
import { createServices } from '../src/server/services.ts';
import { sqliteDatabaseOf } from '../test/support/sqlite-database.ts';
import type { GenerationRecord } from '../src/store/generation-records.ts';
import { fillRecords } from './lib/fill-records.ts';
import { seededRandom } from '../src/canonical/seeded-random.test-util.ts';
import { SIM_ONLY } from '../test/support/test-gateway.ts';

const { values: flags } = parseArgs({ options: { records: { type: 'string' }, runs: { type: 'string' } } });
const RECORDS = Number(flags.records ?? 1_000_000);
const RUNS = Number(flags.runs ?? 15);
const ACCOUNTS = 100;
const KEYS_PER_ACCOUNT = 3;
const DAYS = 90;
const DAY_MS = 86_400_000;
const MODELS = Array.from({ length: 24 }, (_, i) => `vendor${i % 6}/model-${i}`);
const PROVIDERS = ['openai', 'anthropic', 'google', 'groq', 'mistral'];
const APPS = [null, 'Chat UI', 'Batch jobs', 'IDE plugin', 'Support bot', 'Evals'];
/** A model with a handful of records only: the worst case of a filter the indexes do not cover. */
const RARE_MODEL = 'vendor9/rare-model';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-admin-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'switchyard.yaml'), SIM_ONLY);
const env = { SWITCHYARD_DATA_DIR: dir };
const config = loadConfig({ path: join(dir, 'switchyard.yaml'), env });
config.server = { ...config.server, host: '127.0.0.1', port: 0 };
const services = await createServices(config, { env, log: () => {} });

// ------------------------------------------------------------------ fill

const t0 = performance.now();
const random = seededRandom(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const accounts = [];
for (let i = 0; i < ACCOUNTS; i++) {
  accounts.push(
    await services.accountService.createAccount({ name: `account ${i}`, type: 'organization', tier: 'enterprise', creditsUsd: '1000' }),
  );
}
const keys: Array<{ accountId: string; hash: string; models: string[]; apps: Array<string | null> }> = [];
for (const a of accounts) {
  for (let i = 0; i < KEYS_PER_ACCOUNT; i++) {
    const { record } = await services.accountService.createKey({ accountId: a.id, name: `key ${i}` });
    // Each key uses a few models and apps, as real traffic does.
    keys.push({ accountId: a.id, hash: record.hash, models: [pick(MODELS), pick(MODELS), pick(MODELS)], apps: [pick(APPS), pick(APPS)] });
  }
}
const end = Date.now();
const start = end - DAYS * DAY_MS;
function* records(): Generator<GenerationRecord> {
  for (let i = 0; i < RECORDS; i++) {
    const k = keys[Math.floor(random() * keys.length)]!;
    const rare = i % 100_000 === 7;
    const model = rare ? RARE_MODEL : pick(k.models);
    const provider = PROVIDERS[MODELS.indexOf(model) % PROVIDERS.length] ?? 'openai';
    const error = random() < 0.03;
    const prompt = error ? 0 : 50 + Math.floor(random() * 4000);
    const completion = error ? 0 : 10 + Math.floor(random() * 1000);
    const latency = 100 + Math.floor(random() * 5000);
    yield {
      id: `gen-${i.toString(36).padStart(8, '0')}`,
      accountId: k.accountId,
      keyHash: k.hash,
      model,
      provider,
      upstreamModel: model,
      upstreamId: null,
      dialect: 'chat',
      streamed: random() < 0.5,
      cancelled: false,
      status: error ? 'error' : 'success',
      errorCode: error ? 'provider_error' : null,
      finishReason: error ? null : 'stop',
      nativeFinishReason: null,
      tokensPrompt: prompt,
      tokensCompletion: completion,
      tokensCacheRead: Math.floor(prompt / 4),
      tokensCacheWrite: 0,
      tokensReasoning: Math.floor(completion / 10),
      costNanos: error ? 0n : BigInt(prompt * 1000 + completion * 4000),
      costBreakdown: null,
      latencyMs: latency,
      firstTokenMs: Math.floor(latency / 3),
      attempts: [],
      httpReferer: null,
      xTitle: pick(k.apps),
      endUser: null,
      // Records in time order, as settlement writes them.
      createdAt: new Date(start + Math.floor((i / RECORDS) * DAYS * DAY_MS)).toISOString(),
    };
  }
}
fillRecords(sqliteDatabaseOf(services), records());
const fillS = (performance.now() - t0) / 1000;

// ------------------------------------------------------------------ measure over HTTP

const app = buildApp(services);
await app.listen({ host: '127.0.0.1', port: 0 });
const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const admin = (await services.accountService.createKey({ accountId: accounts[0]!.id, name: 'ops', admin: true })).key;
const busiest = accounts[0]!;
const mgmt = (await services.accountService.createKey({ accountId: busiest.id, name: 'dash', management: true })).key;
const someKey = keys[0]!;
const someModel = someKey.models[0]!;
const day = (msAgo: number): string => new Date(end - msAgo).toISOString();

// The dashboard's Activity page: the same route, authenticated by the session cookie.
const signIn = await fetch(`${origin}/api/v1/dashboard/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ key: mgmt }),
});
const sessionCookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

interface Query {
  name: string;
  path: string;
  key: string;
  targetMs: number;
  cookie?: string;
}
const A = '/api/v1/admin';
const queries: Query[] = [
  { name: 'usage 30 d, all accounts, per day', path: `${A}/usage?group_by=day`, key: admin, targetMs: 100 },
  { name: 'usage 30 d, all accounts, per model', path: `${A}/usage?group_by=model`, key: admin, targetMs: 100 },
  { name: 'usage 30 d, all accounts, per account', path: `${A}/usage?group_by=account`, key: admin, targetMs: 100 },
  { name: 'usage 30 d, one account, per day', path: `${A}/usage?group_by=day&account=${busiest.id}`, key: admin, targetMs: 100 },
  { name: 'usage 30 d, one account, per key', path: `${A}/usage?group_by=key&account=${busiest.id}`, key: admin, targetMs: 100 },
  { name: 'generations, no filter', path: `${A}/generations`, key: admin, targetMs: 100 },
  { name: 'generations, account', path: `${A}/generations?account=${busiest.id}`, key: admin, targetMs: 100 },
  { name: 'generations, key', path: `${A}/generations?key=${someKey.hash}`, key: admin, targetMs: 100 },
  { name: 'generations, model', path: `${A}/generations?model=${encodeURIComponent(someModel)}`, key: admin, targetMs: 100 },
  { name: 'generations, status=error', path: `${A}/generations?status=error`, key: admin, targetMs: 100 },
  {
    name: 'generations, account+model+status',
    path: `${A}/generations?account=${busiest.id}&model=${encodeURIComponent(someModel)}&status=success`,
    key: admin,
    targetMs: 100,
  },
  {
    name: 'generations, provider + 7-day range',
    path: `${A}/generations?provider=anthropic&from=${day(14 * DAY_MS)}&to=${day(7 * DAY_MS)}`,
    key: admin,
    targetMs: 100,
  },
  {
    name: 'generations, rare model (10 records)',
    path: `${A}/generations?model=${encodeURIComponent(RARE_MODEL)}`,
    key: admin,
    targetMs: 100,
  },
  { name: 'activity (management key)', path: '/api/v1/activity', key: mgmt, targetMs: 300 },
  { name: 'activity, status=error', path: '/api/v1/activity?status=error', key: mgmt, targetMs: 300 },
  { name: 'dashboard Activity page (session cookie)', path: '/api/v1/activity?limit=50', key: '', cookie: sessionCookie, targetMs: 300 },
];

const lines: string[] = [];
let misses = 0;
for (const q of queries) {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const t = performance.now();
    const res = await fetch(origin + q.path, {
      headers: q.cookie === undefined ? { authorization: `Bearer ${q.key}` } : { cookie: q.cookie },
    });
    const body = (await res.json()) as { data: unknown[] };
    if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${JSON.stringify(body)}`);
    if (i > 0) times.push(performance.now() - t); // the first run warms the statement cache
    rows = body.data.length;
  }
  times.sort((x, y) => x - y);
  const p50 = times[Math.floor(times.length / 2)]!;
  const max = times[times.length - 1]!;
  const ok = max < q.targetMs;
  if (!ok) misses++;
  lines.push(
    `${q.name.padEnd(42)} ${p50.toFixed(1).padStart(7)} ms ${max.toFixed(1).padStart(7)} ms   < ${q.targetMs} ms ${ok ? 'PASS' : 'MISS'}   (${rows} rows)`,
  );
}

const count = (sql: string): number => Number((sqliteDatabaseOf(services).prepare(sql).get() as { n: number }).n);
process.stdout.write(
  `admin aggregates: ${count('SELECT count(*) AS n FROM generation_records').toLocaleString('en')} generation records over ${DAYS} days, ` +
    `${ACCOUNTS} accounts, ${keys.length} keys, ${MODELS.length + 1} models; ${count('SELECT count(*) AS n FROM usage_daily').toLocaleString('en')} rollup rows (` +
    `${count('SELECT count(*) AS n FROM usage_daily_global').toLocaleString('en')} all-accounts, ${count('SELECT count(*) AS n FROM usage_daily_keys').toLocaleString('en')} per key); filled in ${fillS.toFixed(1)} s\n`,
);
process.stdout.write(
  `${'query'.padEnd(42)} ${'p50'.padStart(10)} ${'max'.padStart(10)}   (${RUNS} runs each, over HTTP)\n${lines.join('\n')}\n`,
);
await app.close();
await services.close();
process.exitCode = misses > 0 ? 1 : 0;
