import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { migrate } from '../../src/store/sqlite/open-database.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { verifySqliteAuditChain } from '../../src/store/sqlite/audit-store.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { runCliWithEnv } from '../support/run-cli.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The audit log's hash chain through a real gateway: admin actions over HTTP are chained,
// `switchyard audit verify` passes, then one row changed in SQL makes it fail (exit 1)
// naming that row — on SQLite and on Postgres.

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

interface Engine {
  name: string;
  skip: string | false;
  env(): Promise<Record<string, string>>;
  /** Runs one statement on the gateway's database, behind its back. */
  tamper(gw: TestGateway, env: Record<string, string>, sql: string): Promise<void>;
}

const ENGINES: Engine[] = [
  {
    name: 'SQLite',
    skip: false,
    env: async () => ({}),
    tamper: async (gw, _env, sql) => {
      const db = new DatabaseSync(gw.services.inForce.config.database.path);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'Postgres',
    skip: postgresUnavailable() ?? redisUnavailable() ?? false,
    env: async () => {
      redis = await startRedis();
      return { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    },
    tamper: async (_gw, env, sql) => {
      const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
      try {
        await pool.query(sql);
      } finally {
        await pool.end();
      }
    },
  },
];

for (const engine of ENGINES) {
  describe(`audit verify: ${engine.name}`, { skip: engine.skip }, () => {
    let gw: TestGateway;
    let env: Record<string, string>;
    before(async () => {
      env = await engine.env();
      gw = await startTestGateway({ env });
    });
    after(() => gw?.close());

    test('passes on an intact chain, then names the first entry changed in SQL', async () => {
      const admin = await createAdminKey(gw);
      for (const name of ['one', 'two', 'three']) {
        const res = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin.key, { name, type: 'user' });
        assert.equal(res.status, 201, JSON.stringify(res.json));
      }
      const ok = runCliWithEnv(gw.dir, env, 'audit', 'verify', '--json');
      assert.equal(ok.code, 0, ok.err + ok.out);
      const good = JSON.parse(ok.out);
      assert.equal(good.ok, true);
      assert.ok(good.checked >= 3, ok.out);

      const entries = (await call('GET', `${gw.origin}/api/v1/admin/audit?action=account.create`, admin.key)).json.data as Array<{
        id: number;
      }>;
      const victim = entries.map((e) => e.id).sort((a, b) => a - b)[1]!;
      await engine.tamper(gw, env, `UPDATE admin_actions SET details = '{"name":"forged"}' WHERE id = ${victim}`);
      const bad = runCliWithEnv(gw.dir, env, 'audit', 'verify');
      assert.equal(bad.code, 1, bad.out + bad.err);
      assert.match(bad.out, new RegExp(`broken at entry ${victim}:`));

      // Re-hashing the changed row by hand only moves the break to the next entry.
      await engine.tamper(gw, env, `UPDATE admin_actions SET entry_hash = '${'f'.repeat(64)}' WHERE id = ${victim}`);
      const still = JSON.parse(runCliWithEnv(gw.dir, env, 'audit', 'verify', '--json').out);
      assert.equal(still.ok, false);
      assert.equal(still.broken.id, victim);
    });
  });
}

test('the migration chains the rows written before it, in id order', () => {
  const db = new DatabaseSync(':memory:');
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version < 12),
  );
  for (const action of ['account.create', 'key.create', 'credits.grant']) {
    db.prepare(
      `INSERT INTO admin_actions (at, actor_key_hash, actor_label, actor_account_id, action, target, details)
      VALUES ('2026-01-01T00:00:00.000Z', 'h', 'l', 'a', ?, 't', NULL)`,
    ).run(action);
  }
  migrate(db);
  assert.deepEqual(verifySqliteAuditChain(db), { checked: 3, broken: null });
  db.exec('DELETE FROM admin_actions WHERE id = 2');
  assert.equal(verifySqliteAuditChain(db).broken?.id, 3);
  db.close();
});
