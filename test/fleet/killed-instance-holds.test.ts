import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { generateApiKey, hashApiKey, labelApiKey } from '../../src/auth/api-key.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { listening, serve, serveEnv, stop, type ServeRun } from '../support/serve-process.ts';

// Two `switchyard serve` processes on one Postgres and one Redis; one is SIGKILLed while it
// streams answers. Its requests' credit holds have rows in Postgres (written by its
// settlement queue); once they expire (timeouts.request_ms + timeouts.hold_grace_ms, short
// here), the other instance's sweep removes them and records each request as `interrupted`,
// nothing charged, as a single SQLite gateway does at its next start.

const skip = redisUnavailable() ?? postgresUnavailable() ?? false;

// Slow streams (a chunk every 200 ms) so the kill lands mid-answer; holds expire 1.3 s after admission.
const CONFIG = `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 200 }
timeouts: { request_ms: 1000, hold_grace_ms: 300 }
`;
const NOW = new Date().toISOString();
const BALANCE = 1_000_000_000n;

interface Instance {
  run: ServeRun;
  origin: string;
  dir: string;
}

describe('an instance SIGKILLed mid-answer in a fleet', { skip }, () => {
  let pool: pg.Pool;
  let redis: RedisServer;
  let instances: Instance[] = [];
  let key: string;
  before(async () => {
    const databaseUrl = await createTestDatabase();
    pool = createPostgresPool({ url: databaseUrl, max: 2 });
    await migratePostgres(pool);
    redis = await startRedis();
    const configDir = mkdtempSync(join(tmpdir(), 'switchyard-fleet-config-'));
    const config = join(configDir, 'switchyard.yaml');
    writeFileSync(config, CONFIG);
    await pool.query(
      `INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES ('acct_k', 'k', 'user', 'tier2', $1, $2)`,
      [String(BALANCE), NOW],
    );
    key = generateApiKey();
    await pool.query(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, 'acct_k', 'k', $2, $3)`, [
      hashApiKey(key),
      labelApiKey(key),
      NOW,
    ]);
    instances = await Promise.all(
      [0, 1].map(async () => {
        const dir = mkdtempSync(join(tmpdir(), 'switchyard-fleet-'));
        const run = serve(
          serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config, DATABASE_URL: databaseUrl, REDIS_URL: redis.url }),
          ['--port', '0'],
        );
        return { run, origin: await listening(run), dir };
      }),
    );
  });
  after(async () => {
    for (const i of instances) {
      if (i.run.child.exitCode === null && i.run.child.signalCode === null) await stop(i.run);
      rmSync(i.dir, { recursive: true, force: true });
    }
    await pool?.end();
    await redis?.stop();
    await stopPostgres();
  });

  /** Polls Postgres until `probe` holds (the bound is the test's timeout, not a sleep). */
  async function until<T>(read: () => Promise<T>, probe: (v: T) => boolean): Promise<T> {
    for (;;) {
      const v = await read();
      if (probe(v)) return v;
      await new Promise((resolve) => setTimeout(resolve, 25)); // the poll's pace, not a wait for time to pass
    }
  }

  test(
    'its requests are recorded as interrupted once their holds expire, nothing charged, their holds released everywhere',
    { timeout: 60_000 },
    async () => {
      const [victim] = instances as [Instance, Instance];
      const streams = Array.from({ length: 3 }, async () => {
        try {
          const res = await fetch(`${victim.origin}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'switchyard/sim-pro',
              max_tokens: 200,
              stream: true,
              messages: [{ role: 'user', content: 'tell me a story' }],
            }),
          });
          for await (const chunk of res.body!) void chunk;
          return 'done';
        } catch {
          return 'cut';
        }
      });
      // Killed once the three requests' hold rows are in Postgres (written by its settlement queue).
      const held = await until(
        async () =>
          (await pool.query(`SELECT id FROM reservations WHERE account_id = 'acct_k' ORDER BY id`)).rows.map((r) => r.id as string),
        (ids) => ids.length === 3,
      );
      victim.run.child.kill('SIGKILL');
      await victim.run.exited;
      assert.deepEqual(await Promise.all(streams), ['cut', 'cut', 'cut']);

      const records = await until(
        async () =>
          (await pool.query(`SELECT id, status, error_code, cost_nanos FROM generations WHERE id = ANY($1) ORDER BY id`, [held])).rows,
        (rows) => rows.length === 3,
      );
      assert.deepEqual(
        records,
        held.map((id) => ({ id, status: 'error', error_code: 'interrupted', cost_nanos: '0' })),
      );
      assert.equal((await pool.query('SELECT count(*) AS n FROM reservations')).rows[0].n, '0', 'the rows are gone');
      assert.equal(
        (await pool.query(`SELECT count(*) AS n FROM ledger WHERE generation_id = ANY($1)`, [held])).rows[0].n,
        '0',
        'nothing charged',
      );
      assert.equal(BigInt((await pool.query(`SELECT balance_nanos FROM accounts WHERE id = 'acct_k'`)).rows[0].balance_nanos), BALANCE);
      // The Redis holds of the dead instance are released too (the same sweep reconciles them).
      const conn = new RedisConnection({ url: redis.url });
      await conn.connect();
      try {
        await until(
          async () => conn.send<Array<string | null>>(['HMGET', 'sy:ch:{acct_k}:account', 'held', 'settling']),
          ([h, s]) => BigInt(h ?? '0') + BigInt(s ?? '0') === 0n,
        );
      } finally {
        await conn.close();
      }
    },
  );
});
