import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createClient } from 'redis';
import { createAdminKey } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET /api/v1/admin/config shows the running configuration to the operator's dashboard:
// a config (YAML, through the real loader) with a distinct secret in every place a config
// can hold one — providers' keys (from the file and from ${ENV}), header values, a base
// URL's userinfo and key parameter, secret-named provider options, the moderation
// upstream's key and URL, the web search backend's key, the metrics token, the database's and Redis's URLs (user and
// password), a URL with credentials in free text — and none of them comes back.

const S = {
  envKey: 'envkey-A1b2C3d4E5',
  fileKey: 'filekey-F6g7H8i9J0',
  authHeader: 'hdrauth-K1l2M3n4O5',
  teamHeader: 'hdrteam-P6q7R8s9T0',
  urlUser: 'urluser-U1v2W3x4Y5',
  urlPass: 'urlpass-Z6a7B8c9D0',
  urlQuery: 'urlqkey-E1f2G3h4I5',
  optKey: 'optkey-J6k7L8m9N0',
  optNested: 'optnest-O1p2Q3r4S5',
  optUrl: 'opturl-T6u7V8w9X0',
  modKey: 'modkey-Y1z2A3b4C5',
  modUrlPass: 'modpass-D6e7F8g9H0',
  metrics: 'metrics-I1j2K3l4M5',
  textPass: 'txtpass-N6o7P8q9R0',
  textToken: 'txttok-S1t2U3v4W5',
  dbUser: 'dbuser_x1y2z3a4',
  dbPass: 'dbpass-B5c6D7e8F9',
  redisUser: 'rduser-G1h2I3j4K5',
  redisPass: 'rdpass-L6m7N8o9P0',
  searchKey: 'srchkey-Q1r2S3t4U5',
};

function yaml(database = ''): string {
  return `sim: true
${database}
metrics: { token: "${S.metrics}" }
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: up-env
    kind: openai
    base_url: http://127.0.0.1:9/v1
    api_key: \${UP_KEY}
    headers: { Authorization: "Bearer ${S.authHeader}", X-Team: "${S.teamHeader}" }
  - id: up-file
    kind: openai
    base_url: "http://${S.urlUser}:${S.urlPass}@127.0.0.1:9/v1?key=${S.urlQuery}"
    api_key: "${S.fileKey}"
    options:
      api_key: "${S.optKey}"
      auth: { client_secret: "${S.optNested}" }
      mirror: "https://mirror:${S.optUrl}@127.0.0.1:9/"
models:
  - id: acme/m1
    context_length: 8000
    description: "mirrored at https://ops:${S.textPass}@10.0.0.1/x?token=${S.textToken}"
    endpoints:
      - provider: up-env
        model: m
        pricing: { prompt: "0.000001", completion: "0.000002" }
moderation:
  upstream: { base_url: "https://mod:${S.modUrlPass}@127.0.0.1:9/v1", api_key: "${S.modKey}" }
search: { kind: brave, url: "https://api.search.brave.com", key: "${S.searchKey}", price_per_search: "0.005" }
`;
}

async function configText(gw: TestGateway): Promise<string> {
  const admin = await createAdminKey(gw);
  const res = await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${admin.key}` } });
  assert.equal(res.status, 200);
  return res.text();
}

function assertNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) assert.equal(text.includes(secret), false, `${secret} shown: ${text}`);
}

const ALL_BUT_STORES = Object.entries(S)
  .filter(([name]) => !/^(db|redis)/.test(name))
  .map(([, v]) => v);

describe('admin config: no secret of the config comes back', () => {
  test('on SQLite: providers, headers, URLs, options, moderation, metrics, free text', async () => {
    const gw = await startTestGateway({ yaml: yaml(), env: { UP_KEY: S.envKey } });
    try {
      const text = await configText(gw);
      assertNoSecret(text, ALL_BUT_STORES);
      const data = (JSON.parse(text) as { data: any }).data;
      const upFile = data.providers.find((p: { id: string }) => p.id === 'up-file');
      // What is not secret stays readable: the host, the path, the parameter's name.
      assert.match(upFile.baseUrl, /^http:\/\/\*{8}@127\.0\.0\.1:9\/v1\?key=(\*{8}|\[REDACTED\])$/);
      assert.equal(upFile.options.mirror, 'https://********@127.0.0.1:9/');
      assert.equal(data.moderation.upstream.baseUrl, 'https://********@127.0.0.1:9/v1');
      assert.equal(data.metrics.enabled, true);
    } finally {
      await gw.close();
    }
  });

  const skip = postgresUnavailable() ?? redisUnavailable() ?? false;
  describe('on Postgres and Redis, each with its own user and password', { skip }, () => {
    let redis: RedisServer;
    let gw: TestGateway;
    let databaseUrl: string;
    let redisUrl: string;
    before(async () => {
      redis = await startRedis();
      const client = createClient({ url: redis.url });
      await client.connect();
      await client.sendCommand(['ACL', 'SETUSER', S.redisUser, 'on', `>${S.redisPass}`, '~*', '&*', '+@all']);
      await client.quit();
      redisUrl = `redis://${S.redisUser}:${S.redisPass}@127.0.0.1:${redis.port}`;
      const adminUrl = new URL(await createTestDatabase());
      const pool = new pg.Pool({ connectionString: adminUrl.href });
      await pool.query(`CREATE ROLE ${S.dbUser} LOGIN SUPERUSER PASSWORD '${S.dbPass}'`).catch(async (err: Error) => {
        if (!/already exists/.test(err.message)) throw err;
      });
      await pool.end();
      adminUrl.username = S.dbUser;
      adminUrl.password = S.dbPass;
      databaseUrl = adminUrl.href;
      gw = await startTestGateway({
        yaml: yaml(`database: { url: "${databaseUrl}" }\nredis: { url: "${redisUrl}" }`),
        env: { UP_KEY: S.envKey },
      });
    });
    after(async () => {
      await gw?.close();
      await redis?.stop();
      await stopPostgres();
    });

    test('database.url and redis.url: user and password masked, the rest shown', async () => {
      assert.equal(gw.services.stores.engine, 'postgres', 'the gateway runs on the URLs it was given');
      const text = await configText(gw);
      assertNoSecret(text, Object.values(S));
      const data = (JSON.parse(text) as { data: any }).data;
      assert.equal(data.database.url, databaseUrl.replace(`${S.dbUser}:${S.dbPass}@`, '********@'));
      assert.equal(data.redis.url, `redis://********@127.0.0.1:${redis.port}`);
    });
  });
});
