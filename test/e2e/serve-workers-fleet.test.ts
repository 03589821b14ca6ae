import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey, hashApiKey, labelApiKey } from '../../src/auth/api-key.ts';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis } from '../support/redis-server.ts';
import { descendants, killLeft, serve, serveEnv, untilGone } from '../support/serve-process.ts';
import { parsePrometheus, sumOf } from '../support/prometheus-text.ts';

// `switchyard serve --workers 2` (the real CLI) on a fleet config: Postgres and Redis named
// in the file (database.url, redis.url), so the primary accepts N > 1; two worker pids, one
// port, /metrics summed over both, and SIGTERM drains with every charge in Postgres.

const skip = postgresUnavailable() ?? redisUnavailable() ?? false;
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await stopPostgres();
});

function post(origin: string, key: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/v1/chat/completions`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'switchyard/sim-pro', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }));
  });
}

function scrape(origin: string): Promise<ReturnType<typeof parsePrometheus>> {
  return new Promise((resolve, reject) => {
    request(`${origin}/metrics`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(parsePrometheus(text)) : reject(new Error(`${res.statusCode}: ${text}`))));
    })
      .on('error', reject)
      .end();
  });
}

test(
  '--workers 2 on Postgres and Redis from the config file: two pids on one port, /metrics summed, SIGTERM drains with every charge in Postgres',
  { skip, timeout: 120_000 },
  async () => {
    const databaseUrl = await createTestDatabase();
    const pool = createPostgresPool({ url: databaseUrl, max: 2 });
    const redis = await startRedis();
    let tree: number[] = [];
    try {
      await migratePostgres(pool);
      const now = new Date().toISOString();
      await pool.query(
        `INSERT INTO accounts (id, name, account_type, tier, balance_nanos, created_at) VALUES ('acct_w', 'w', 'user', 'tier2', 1000000000, $1)`,
        [now],
      );
      await pool.query(
        `INSERT INTO ledger (account_id, kind, amount_nanos, note, created_at) VALUES ('acct_w', 'credit', 1000000000, 'test', $1)`,
        [now],
      );
      const key = generateApiKey();
      await pool.query(`INSERT INTO api_keys (hash, account_id, name, label, created_at) VALUES ($1, 'acct_w', 'k', $2, $3)`, [
        hashApiKey(key),
        labelApiKey(key),
        now,
      ]);
      const dir = mkdtempSync(join(tmpdir(), 'switchyard-workers-fleet-'));
      dirs.push(dir);
      const config = join(dir, 'switchyard.yaml');
      writeFileSync(config, `sim: true\ndatabase:\n  url: ${JSON.stringify(databaseUrl)}\nredis:\n  url: ${JSON.stringify(redis.url)}\n`);
      const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config, REDIS_URL: '' }), ['--workers', '2', '--port', '0']);
      const port = Number((await s.waitFor(/2 workers serving on [\d.]+:(\d+) \(primary pid \d+\)/))[1]);
      const origin = `http://127.0.0.1:${port}`;
      const pids = [...s.stderr.matchAll(/worker \d+ \(pid (\d+)\) listening on/g)].map((m) => Number(m[1]));
      assert.equal(new Set(pids).size, 2, s.stderr);
      tree = [s.child.pid!, ...descendants(s.child.pid!)];
      for (let i = 0; i < 6; i++) {
        const r = await post(origin, key);
        assert.equal(r.status, 200, r.text);
      }
      for (let i = 0; i < 2; i++) {
        const m = await scrape(origin);
        assert.equal(sumOf(m, 'switchyard_requests_total', { route: 'chat', model: 'switchyard/sim-pro', status_class: '2xx' }), 6);
      }
      s.child.kill('SIGTERM');
      assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
      await s.closed;
      assert.deepEqual(await untilGone(tree, port), [], s.stderr);
      const rows = (
        await pool.query(
          `SELECT count(*) AS n, coalesce(sum(cost_nanos), 0) AS c FROM generations WHERE account_id = 'acct_w' AND status = 'success'`,
        )
      ).rows[0];
      assert.equal(Number(rows.n), 6, 'every answer recorded in Postgres');
      const bal = BigInt((await pool.query(`SELECT balance_nanos FROM accounts WHERE id = 'acct_w'`)).rows[0].balance_nanos);
      assert.ok(BigInt(rows.c) > 0n);
      assert.equal(1_000_000_000n - bal, BigInt(rows.c), 'the balance moved by exactly the charges');
    } finally {
      killLeft(tree);
      await pool.end();
      await redis.stop();
    }
  },
);
