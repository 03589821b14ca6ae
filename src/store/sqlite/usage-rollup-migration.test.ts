import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations.ts';
import { migrate } from './open-database.ts';

// A database from before the rollups: migration 4 fills them from the generation records
// already there (all but the stale-hold sweep's 'interrupted' ones, which nothing charged).

test('migration 4 rolls the existing generation records up into the daily usage tables', () => {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((x) => x.version <= 3)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-01-01T00:00:00Z');
  }
  db.exec(`INSERT INTO accounts (id, name, account_type, created_at) VALUES ('a1', 'a', 'user', '2026-01-01T00:00:00Z')`);
  const insert = db.prepare(`INSERT INTO generations (id, account_id, key_hash, model, provider, endpoint_dialect, streamed, status,
    error_code, tokens_prompt, tokens_completion, tokens_reasoning, cost_nanos, latency_ms, x_title, created_at)
    VALUES (?, 'a1', ?, ?, ?, 'chat', 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  insert.run('g1', 'k1', 'm/a', 'p', 'success', null, 10, 5, 1, 100, 300, 'App', '2026-03-01T10:00:00.000Z');
  insert.run('g2', 'k1', 'm/a', 'p', 'success', null, 20, 7, 0, 250, 500, 'App', '2026-03-01T23:59:59.999Z');
  insert.run('g3', 'k1', 'm/a', 'p', 'error', 'provider_error', 0, 0, 0, 0, null, 'App', '2026-03-01T12:00:00.000Z');
  insert.run('g4', 'k2', null, null, 'error', 'model_not_found', 0, 0, 0, 0, null, null, '2026-03-02T00:00:00.000Z');
  insert.run('g5', 'k2', null, null, 'error', 'interrupted', 0, 0, 0, 0, null, null, '2026-03-02T01:00:00.000Z');
  migrate(db);

  const rows = db
    .prepare(
      `SELECT day, key_hash, model, provider, app_title, requests, errors, tokens_prompt, tokens_completion,
    tokens_reasoning, cost_nanos, latency_ms_sum, latency_count FROM usage_daily ORDER BY day, key_hash`,
    )
    .all();
  assert.deepEqual(
    rows.map((r) => ({ ...r })),
    [
      {
        day: '2026-03-01',
        key_hash: 'k1',
        model: 'm/a',
        provider: 'p',
        app_title: 'App',
        requests: 3,
        errors: 1,
        tokens_prompt: 30,
        tokens_completion: 12,
        tokens_reasoning: 1,
        cost_nanos: 350,
        latency_ms_sum: 800,
        latency_count: 2,
      },
      {
        day: '2026-03-02',
        key_hash: 'k2',
        model: '',
        provider: '',
        app_title: '',
        requests: 1,
        errors: 1,
        tokens_prompt: 0,
        tokens_completion: 0,
        tokens_reasoning: 0,
        cost_nanos: 0,
        latency_ms_sum: 0,
        latency_count: 0,
      },
    ],
  );
  const global = db.prepare('SELECT day, requests, cost_nanos FROM usage_daily_global ORDER BY day').all();
  assert.deepEqual(
    global.map((r) => ({ ...r })),
    [
      { day: '2026-03-01', requests: 3, cost_nanos: 350 },
      { day: '2026-03-02', requests: 1, cost_nanos: 0 },
    ],
  );
  const keys = db.prepare('SELECT day, account_id, key_hash, requests FROM usage_daily_keys ORDER BY day').all();
  assert.deepEqual(
    keys.map((r) => ({ ...r })),
    [
      { day: '2026-03-01', account_id: 'a1', key_hash: 'k1', requests: 3 },
      { day: '2026-03-02', account_id: 'a1', key_hash: 'k2', requests: 1 },
    ],
  );
});
