import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startTestGateway } from '../support/test-gateway.ts';
import { call } from '../support/admin-client.ts';
import { configureConnection, migrate } from '../../src/store/sqlite/open-database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/postgres-migrations.ts';
import { PostgresGenerationRepository } from '../../src/store/postgres/postgres-generation-repository.ts';
import { PgExecutor } from '../../src/store/postgres/pg-executor.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';

// Migration 11 converts the records of the old `generations` table into generation_records:
// every field reads back as it was (through the admin API on SQLite, the repository on
// Postgres), a single successful attempt and a standard cost breakdown in their compact forms.

const ONE = [{ model: 'a/m', provider: 'p', endpoint: 'p-main', status: 200, errorCode: null, ms: 321 }];
const TWO = [{ model: 'a/m', provider: 'q', endpoint: 'q-main', status: 503, errorCode: 'upstream_unavailable', ms: 12 }, ONE[0]];
const FAILED = [{ model: 'a/m', provider: 'p', endpoint: 'p-main', status: 500, errorCode: 'upstream_error', ms: 40 }];
const STANDARD = { prompt: '0.000012', completion: '0.0000345', cache_read: '0', cache_write: '0', request: '0', image: '0' };
const WRITTEN_OFF = { ...STANDARD, written_off: '0.00001' };

interface Legacy {
  id: string;
  created_at: string;
  attempts: unknown[] | null;
  cost_breakdown: Record<string, string> | null;
  status: string;
  error_code: string | null;
  x_title: string | null;
  http_referer: string | null;
  end_user: string | null;
  cache_hit: number;
  model: string | null;
  provider: string | null;
  endpoint_dialect: string;
}

const LEGACY: Legacy[] = [
  {
    id: 'gen-1767225600-aaaaaaaaaaaaaa',
    created_at: '2026-01-01T00:00:00.123Z',
    attempts: ONE,
    cost_breakdown: STANDARD,
    status: 'success',
    error_code: null,
    x_title: 'My, App',
    http_referer: 'https://app.test/',
    end_user: 'u-1',
    cache_hit: 0,
    model: 'a/m',
    provider: 'p',
    endpoint_dialect: 'chat',
  },
  {
    id: 'gen-1767225601-bbbbbbbbbbbbbb',
    created_at: '2026-01-01T00:00:01.999Z',
    attempts: TWO,
    cost_breakdown: WRITTEN_OFF,
    status: 'success',
    error_code: null,
    x_title: null,
    http_referer: null,
    end_user: null,
    cache_hit: 0,
    model: 'a/m',
    provider: 'p',
    endpoint_dialect: 'messages',
  },
  {
    id: 'gen-1767225602-cccccccccccccc',
    created_at: '2026-01-02T23:59:59.000Z',
    attempts: FAILED,
    cost_breakdown: null,
    status: 'error',
    error_code: 'upstream_error',
    x_title: null,
    http_referer: null,
    end_user: null,
    cache_hit: 0,
    model: 'a/m',
    provider: null,
    endpoint_dialect: 'responses',
  },
  {
    id: 'gen-1767225603-dddddddddddddd',
    created_at: '2026-01-03T08:00:00.000Z',
    attempts: [],
    cost_breakdown: STANDARD,
    status: 'success',
    error_code: null,
    x_title: 'Cached',
    http_referer: null,
    end_user: null,
    cache_hit: 1,
    model: 'a/m',
    provider: 'p',
    endpoint_dialect: 'chat',
  },
  // The stale-hold sweep's record: no model, no dialect, no attempts (NULL in old rows).
  {
    id: 'gen-1767225604-eeeeeeeeeeeeee',
    created_at: '2026-01-04T00:00:00.000Z',
    attempts: null,
    cost_breakdown: null,
    status: 'error',
    error_code: 'interrupted',
    x_title: null,
    http_referer: null,
    end_user: null,
    cache_hit: 0,
    model: null,
    provider: null,
    endpoint_dialect: '',
  },
];

const COLUMNS = [
  'id',
  'account_id',
  'key_hash',
  'model',
  'provider',
  'upstream_model',
  'upstream_id',
  'endpoint_dialect',
  'streamed',
  'cancelled',
  'status',
  'error_code',
  'finish_reason',
  'native_finish_reason',
  'tokens_prompt',
  'tokens_completion',
  'tokens_cache_read',
  'tokens_cache_write',
  'tokens_reasoning',
  'cost_nanos',
  'cost_breakdown',
  'latency_ms',
  'first_token_ms',
  'attempts',
  'http_referer',
  'x_title',
  'end_user',
  'created_at',
  'cache_hit',
];

function values(r: Legacy, accountId: string, keyHash: string, i: number): Array<string | number | null> {
  return [
    r.id,
    accountId,
    keyHash,
    r.model,
    r.provider,
    r.model === null ? null : 'm-up',
    r.error_code === null ? `up-${i}` : null,
    r.endpoint_dialect,
    i % 2,
    0,
    r.status,
    r.error_code,
    r.status === 'success' ? 'stop' : null,
    r.status === 'success' ? 'end_turn' : null,
    100 + i,
    200 + i,
    i,
    0,
    0,
    1000 * i,
    r.cost_breakdown === null ? null : JSON.stringify(r.cost_breakdown),
    r.model === null ? null : 500 + i,
    r.model === null ? null : 50,
    r.attempts === null ? null : JSON.stringify(r.attempts),
    r.http_referer,
    r.x_title,
    r.end_user,
    r.created_at,
    r.cache_hit,
  ];
}

/** What the record must read as after the migration. */
function expected(r: Legacy, i: number): Record<string, unknown> {
  return {
    id: r.id,
    createdAt: r.created_at,
    attempts: r.attempts ?? [],
    costBreakdown: r.cost_breakdown,
    status: r.status,
    errorCode: r.error_code,
    xTitle: r.x_title,
    httpReferer: r.http_referer,
    endUser: r.end_user,
    cacheHit: r.cache_hit === 1,
    model: r.model,
    provider: r.provider,
    dialect: r.endpoint_dialect,
    tokensPrompt: 100 + i,
    costNanos: BigInt(1000 * i),
    upstreamId: r.error_code === null ? `up-${i}` : null,
  };
}

describe('migration 11: old generation rows converted', () => {
  after(async () => {
    if (postgresUnavailable() === null) await stopPostgres();
  });

  test('SQLite: every field of the old rows reads back through the admin API; the common forms stored compactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-mig11-'));
    const path = join(dir, 'old.db');
    const old = new DatabaseSync(path);
    configureConnection(old);
    migrate(
      old,
      MIGRATIONS.filter((m) => m.version <= 10),
    );
    const insert = old.prepare(`INSERT INTO generations (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    LEGACY.forEach((r, i) => insert.run(...values(r, 'acct_old', 'a'.repeat(64), i)));
    old.close();
    const gw = await startTestGateway({
      tweak: (c) => {
        c.database.path = path;
      },
    });
    try {
      const admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
      for (const [i, r] of LEGACY.entries()) {
        const got = (await call('GET', `${gw.origin}/api/v1/admin/generations/${r.id}`, admin)).json.data;
        const want = expected(r, i);
        assert.deepEqual(
          [
            got.id,
            got.created_at,
            got.attempts,
            got.cost_breakdown,
            got.status,
            got.error_code,
            got.app_title,
            got.http_referer,
            got.user,
            got.model,
            got.provider_name,
            got.tokens_prompt,
            got.upstream_id,
            got.account_id,
            got.key_hash,
          ],
          [
            want.id,
            want.createdAt,
            want.attempts,
            want.costBreakdown,
            want.status,
            want.errorCode,
            want.xTitle,
            want.httpReferer,
            want.endUser,
            want.model,
            want.provider,
            want.tokensPrompt,
            want.upstreamId,
            'acct_old',
            'a'.repeat(64),
          ],
          r.id,
        );
      }
      const stored = gw.db
        .prepare('SELECT id, attempts, endpoint_ref, upstream_ms, cost_breakdown FROM generation_records ORDER BY seq')
        .all() as Array<Record<string, unknown>>;
      assert.deepEqual(
        stored.map((s) => s.id),
        LEGACY.map((r) => r.id),
        'in time order',
      );
      assert.equal(stored[0]!.attempts, null, 'one successful attempt: its endpoint and duration only');
      assert.equal(stored[0]!.upstream_ms, 321);
      assert.equal(stored[0]!.cost_breakdown, JSON.stringify(Object.values(STANDARD)), 'a standard breakdown: an array');
      assert.equal(stored[1]!.attempts, JSON.stringify(TWO), 'two attempts: kept whole');
      assert.equal(stored[1]!.cost_breakdown, JSON.stringify(WRITTEN_OFF), 'other items: kept as they were');
      assert.equal(stored[2]!.attempts, JSON.stringify(FAILED), 'a failed attempt: kept whole');
      assert.equal(stored[4]!.attempts, null);
      // The old table is gone; the view reads as it did.
      assert.equal((gw.db.prepare("SELECT type FROM sqlite_schema WHERE name = 'generations'").get() as { type: string }).type, 'view');
      const listed = (await call('GET', `${gw.origin}/api/v1/admin/generations?account=acct_old`, admin)).json.data.map(
        (g: { id: string }) => g.id,
      );
      assert.deepEqual(listed, LEGACY.map((r) => r.id).reverse());
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Postgres: the same rows convert alike', { skip: postgresUnavailable() ?? false }, async () => {
    const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
    try {
      await migratePostgres(
        pool,
        POSTGRES_MIGRATIONS.filter((m) => m.version <= 10),
      );
      for (const [i, r] of LEGACY.entries()) {
        await pool.query(
          `INSERT INTO generations (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, c) => `$${c + 1}`).join(', ')})`,
          values(r, 'acct_old', 'a'.repeat(64), i),
        );
      }
      await migratePostgres(pool);
      const repo = new PostgresGenerationRepository(PgExecutor.ofPool(pool));
      for (const [i, r] of LEGACY.entries()) {
        const got = (await repo.getRecord(r.id))!;
        const want = expected(r, i);
        for (const [k, v] of Object.entries(want)) assert.deepEqual((got as unknown as Record<string, unknown>)[k], v, `${r.id} ${k}`);
      }
      const stored = (await pool.query('SELECT id, attempts, upstream_ms, cost_breakdown FROM generation_records ORDER BY seq')).rows;
      assert.deepEqual(
        stored.map((s) => s.id),
        LEGACY.map((r) => r.id),
      );
      assert.equal(stored[0].attempts, null);
      assert.equal(stored[0].upstream_ms, 321);
      assert.deepEqual(JSON.parse(stored[0].cost_breakdown), Object.values(STANDARD));
      assert.deepEqual(JSON.parse(stored[1].attempts), TWO);
    } finally {
      await pool.end();
    }
  });
});
