import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { BIN, listening, serve, serveEnv, starterKey, stop, tempDir } from '../support/serve-process.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';

// Secrets by reference: a secret field may hold `env:NAME` or `file:/path` instead of the
// secret. The upstream (an emulator) sees the resolved key; the config view, `config check`
// and errors name the reference, never the value; a rotated file is read again on reload,
// under load, without one failed request.

const S = {
  fileKey: 'sk-file-Q1w2E3r4T5y6',
  envKey: 'sk-env-U7i8O9p0A1s2',
  rotated: 'sk-rotated-D3f4G5h6J7k8',
  metrics: 'metrics-Z9x8C7v6B5',
  dbUser: 'refuser_k1l2m3',
  dbPass: 'refpass-N4m5Q6w7',
  redisUser: 'refrd-E8r9T0y1',
  redisPass: 'refrdpass-U2i3O4p5',
};

function keyOf(headers: Record<string, unknown>): string {
  return String(headers.authorization ?? '').replace(/^Bearer /, '');
}

const MODELS = (provider: string) => `models:
  - id: acme/ref
    context_length: 32000
    endpoints:
      - provider: ${provider}
        model: mock-1
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

async function configText(gw: TestGateway): Promise<string> {
  const admin = await createAdminKey(gw);
  const res = await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${admin.key}` } });
  assert.equal(res.status, 200);
  return res.text();
}

function assertNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) assert.equal(text.includes(secret), false, `${secret} shown: ${text}`);
}

describe('secret references', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator();
  });
  after(async () => {
    await emu.close();
  });

  test('api_key: file:… and api_keys[].key: env:… reach the upstream resolved; the config view shows neither', async () => {
    const dir = tempDir('switchyard-secret-ref');
    const keyFile = join(dir, 'openai-key');
    const metricsFile = join(dir, 'metrics-token');
    writeFileSync(keyFile, `${S.fileKey}\n`);
    writeFileSync(metricsFile, S.metrics);
    const gw = await startTestGateway({
      env: { POOL_KEY: S.envKey },
      yaml: `sim: false
metrics: { token: "file:${metricsFile}" }
providers:
  - id: single
    kind: openai
    base_url: "${emu.baseUrl}"
    api_key: "file:${keyFile}"
  - id: pooled
    kind: openai
    base_url: "${emu.baseUrl}"
    api_keys:
      - { key: "env:POOL_KEY", label: only }
${MODELS('single')}  - id: acme/pooled
    context_length: 32000
    endpoints:
      - provider: pooled
        model: mock-1
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
    });
    try {
      emu.reset();
      for (const model of ['acme/ref', 'acme/pooled']) {
        const res = await postJson(
          `${gw.baseUrl}/chat/completions`,
          { model, messages: [{ role: 'user', content: 'hi' }] },
          { authorization: `Bearer ${gw.key}` },
        );
        assert.equal(res.status, 200, res.text);
      }
      assert.deepEqual(
        emu.requests.map((r) => keyOf(r.headers)),
        [S.fileKey, S.envKey],
      );
      // The metrics token from a file guards /metrics.
      assert.equal((await fetch(`${gw.origin}/metrics`)).status, 401);
      assert.equal((await fetch(`${gw.origin}/metrics`, { headers: { authorization: `Bearer ${S.metrics}` } })).status, 200);
      const text = await configText(gw);
      assertNoSecret(text, [S.fileKey, S.envKey, S.metrics]);
    } finally {
      await gw.close();
    }
  });

  describe('config check names a missing reference, never a value', () => {
    const dir = tempDir('switchyard-secret-check');
    function check(provider: string, env: Record<string, string> = {}) {
      const path = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(
        path,
        `sim: false\nproviders:\n  - id: up\n    kind: openai\n    base_url: http://127.0.0.1:9/v1\n${provider}${MODELS('up')}`,
      );
      const r = spawnSync(process.execPath, [BIN, 'config', 'check', '--config', path], {
        env: { ...process.env, SWITCHYARD_CONFIG: '', DATABASE_URL: '', SWITCHYARD_DATA_DIR: join(dir, 'data'), ...env },
        encoding: 'utf8',
      });
      const out = `${r.stdout}${r.stderr}`;
      for (const secret of Object.values(S)) assert.equal(out.includes(secret), false, `a secret was quoted: ${out}`);
      return { code: r.status, out };
    }

    test('an unset variable: the field and the variable named', () => {
      const r = check('    api_key: "env:SY_TEST_UNSET_KEY"\n');
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /providers\[0\]\.api_key: the environment variable SY_TEST_UNSET_KEY \(from env:SY_TEST_UNSET_KEY\) is not set or empty/,
      );
    });

    test('a missing file: the field and the path named', () => {
      const missing = join(dir, 'no-such-secret');
      const r = check(`    api_keys:\n      - { key: "file:${missing}", label: a }\n`);
      assert.equal(r.code, 1, r.out);
      assert.ok(r.out.includes(`providers[0].api_keys[0].key: the secret file ${missing} (from file:${missing}) does not exist`), r.out);
    });

    test('an empty file and a relative path are refused; a readable file loads, its value never printed', () => {
      const empty = join(dir, 'empty-secret');
      writeFileSync(empty, '\n');
      assert.match(check(`    api_key: "file:${empty}"\n`).out, /the secret file .*empty-secret \(from file:.*\) is empty/);
      assert.match(check('    api_key: "file:secrets/key"\n').out, /"file:secrets\/key" must name an absolute path/);
      const good = join(dir, 'good-secret');
      writeFileSync(good, S.fileKey);
      const ok = check(`    api_key: "file:${good}"\n`, { SY_TEST_KEY: S.envKey });
      assert.equal(ok.code, 0, ok.out);
      assert.match(ok.out, /^ {2}up +openai +enabled/m);
    });
  });

  test("commands that only open the database (init, accounts) run without the providers' secrets", () => {
    const dir = tempDir('switchyard-secret-cli');
    writeFileSync(
      join(dir, 'switchyard.yaml'),
      `sim: false
providers:
  - { id: up, kind: openai, base_url: "http://127.0.0.1:9/v1", api_key: "env:SY_TEST_NOT_IN_THIS_SHELL" }
${MODELS('up')}`,
    );
    const init = runCli(dir, 'init');
    assert.equal(init.code, 0, init.err);
    const list = runCli(dir, 'accounts', 'list', '--json');
    assert.equal(list.code, 0, list.err);
    // `config check` is the command that resolves them all, and says which one is missing.
    const check = runCli(dir, 'config', 'check');
    assert.equal(check.code, 1);
    assert.match(check.err, /SY_TEST_NOT_IN_THIS_SHELL/);
  });

  const skip = postgresUnavailable() ?? redisUnavailable() ?? false;
  describe('database.password and redis.password by reference join their URLs', { skip }, () => {
    let redis: RedisServer;
    let gw: TestGateway;
    let databaseUrl: URL;
    before(async () => {
      redis = await startRedis();
      const client = createClient({ url: redis.url });
      await client.connect();
      await client.sendCommand(['ACL', 'SETUSER', S.redisUser, 'on', `>${S.redisPass}`, '~*', '&*', '+@all']);
      await client.quit();
      databaseUrl = new URL(await createTestDatabase());
      const pool = new pg.Pool({ connectionString: databaseUrl.href });
      await pool.query(`CREATE ROLE ${S.dbUser} LOGIN SUPERUSER PASSWORD '${S.dbPass}'`).catch((err: Error) => {
        if (!/already exists/.test(err.message)) throw err;
      });
      await pool.end();
      databaseUrl.username = S.dbUser;
      databaseUrl.password = '';
      const dir = tempDir('switchyard-secret-stores');
      writeFileSync(join(dir, 'pg-password'), `${S.dbPass}\n`);
      gw = await startTestGateway({
        env: { SY_REDIS_PASSWORD: S.redisPass },
        yaml: `sim: true
database: { url: "${databaseUrl.href}", password: "file:${join(dir, 'pg-password')}" }
redis: { url: "redis://${S.redisUser}@127.0.0.1:${redis.port}", password: "env:SY_REDIS_PASSWORD" }
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
`,
      });
    });
    after(async () => {
      await gw?.close();
      await redis?.stop();
      await stopPostgres();
    });

    test('the gateway runs on Postgres and Redis as those users; the config view shows neither password', async () => {
      assert.equal(gw.services.stores.engine, 'postgres');
      const text = await configText(gw);
      assertNoSecret(text, [S.dbPass, S.redisPass]);
      const data = (JSON.parse(text) as { data: any }).data;
      assert.equal(data.redis.url, `redis://********@127.0.0.1:${redis.port}`);
    });
  });

  test(
    'a key file rotated and reloaded (SIGHUP) under load: no request fails, the upstream sees the new key after',
    { timeout: 90_000 },
    async () => {
      const dir = tempDir('switchyard-secret-reload');
      const keyFile = join(dir, 'openai-key');
      writeFileSync(keyFile, `${S.fileKey}\n`);
      const config = join(dir, 'switchyard.yaml');
      writeFileSync(
        config,
        `sim: false
providers:
  - { id: local, kind: openai, base_url: "${emu.baseUrl}", api_key: "file:${keyFile}" }
${MODELS('local')}`,
      );
      const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config }), ['--port', '0']);
      try {
        const origin = await listening(s);
        const key = await starterKey(s);
        emu.reset();
        const chat = () =>
          fetch(`${origin}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'acme/ref', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
          }).then(async (r) => ({ status: r.status, body: await r.text() }));

        // One request held at the upstream across the reload: it was sent with the old key and must finish.
        const held = gate();
        emu.enqueue({ fault: 'held', until: held.until });
        const inFlight = chat();
        while (emu.requests.length === 0) await new Promise((r) => setImmediate(r));

        // Load: four clients sending back to back until the new key has been seen a few times.
        let newKeySeen = 0;
        const statuses: Array<{ status: number; body: string }> = [];
        const client = async (): Promise<void> => {
          while (newKeySeen < 8) {
            statuses.push(await chat());
            newKeySeen = emu.requests.filter((r) => keyOf(r.headers) === S.rotated).length;
          }
        };
        const load = Promise.all([client(), client(), client(), client()]);
        // Once the load runs, the file is rotated and the gateway told to reload.
        while (statuses.length < 4) await new Promise((r) => setImmediate(r));
        writeFileSync(keyFile, `${S.rotated}\n`);
        s.child.kill('SIGHUP');
        await s.waitFor(/config reloaded: generation 2/);
        held.open();
        await load;
        const first = await inFlight;

        assert.equal(first.status, 200, first.body);
        const failed = statuses.filter((r) => r.status !== 200);
        assert.deepEqual(failed, [], 'every request under load succeeded');
        const keys = emu.requests.map((r) => keyOf(r.headers));
        assert.equal(keys[0], S.fileKey, 'the held request went out with the key in force when it started');
        assert.ok(
          keys.every((k) => k === S.fileKey || k === S.rotated),
          'only the two keys were ever sent',
        );
        // A request sent once the load is over goes out with the new key.
        assert.equal((await chat()).status, 200);
        assert.equal(keyOf(emu.requests.at(-1)!.headers), S.rotated);

        // The file gone, a reload is refused naming it, and the key in force stays.
        rmSync(keyFile);
        s.child.kill('SIGHUP');
        await s.waitFor(
          /config reload refused: .*providers\[0\]\.api_key: the secret file .*openai-key \(from file:.*\) does not exist; the previous config \(generation 2\) stays in force/,
        );
        assert.equal((await chat()).status, 200);
        assert.equal(keyOf(emu.requests.at(-1)!.headers), S.rotated);
        assert.equal(s.stderr.includes(S.rotated) || s.stderr.includes(S.fileKey), false, 'no key in the log');
      } finally {
        await stop(s);
      }
    },
  );
});
