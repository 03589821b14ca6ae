import { DEFAULT_TIERS } from './tier-limits.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { loadConfig, parseConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function writeConfig(text: string): string {
  const path = join(dir, `config-${++fileCount}.yaml`);
  writeFileSync(path, text);
  return path;
}

const EXAMPLE = `
providers:
  - id: local                 # provider slug used in routing
    kind: openai
    base_url: http://127.0.0.1:9100/v1
    api_key: \${LOCAL_KEY}
models:
  - id: acme/mock-1
    name: Mock One
    context_length: 32000
    capabilities: [text, tool_calling, json_mode, streaming]
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

function expectConfigError(fn: () => unknown, path: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.equal(err.path, path);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('loadConfig', () => {
  it('loads the documented example', () => {
    const config = loadConfig({ path: writeConfig(EXAMPLE), env: { LOCAL_KEY: 'sk-local' } });
    assert.deepEqual(config.providers, [{ id: 'local', kind: 'openai', baseUrl: 'http://127.0.0.1:9100/v1', apiKey: 'sk-local' }]);
    assert.deepEqual(config.models, [
      {
        id: 'acme/mock-1',
        name: 'Mock One',
        contextLength: 32000,
        capabilities: ['text', 'tool_calling', 'json_mode', 'streaming'],
        endpoints: [{ provider: 'local', model: 'mock-model', pricing: { prompt: '0.000001', completion: '0.000002' } }],
      },
    ]);
  });

  it('gives defaults without any file', () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(config, {
      server: {
        host: '127.0.0.1',
        port: 8080,
        bodyLimitBytes: 33554432,
        requestTimeoutMs: 120000,
        headersTimeoutMs: 30000,
        keepAliveTimeoutMs: 65000,
        idleTimeoutMs: 60000,
        imageUrlTtlSeconds: 3600,
        imageUrlMaxBytes: 268435456,
      },
      database: { path: './data/switchyard.db' },
      redis: {},
      timeouts: { attemptMs: 60000, requestMs: 300000, disconnectGraceMs: 10000, drainMs: 30000, holdGraceMs: 60000, holdJournalMs: 100 },
      bootstrap: { credits: '10' },
      accounts: { maxKeys: 1000 },
      sim: 'auto',
      providers: [],
      models: [],
      tiers: [...DEFAULT_TIERS],
      moderation: { rules: [], upstream: null, maxInputChars: 1_000_000 },
      metrics: { enabled: true },
      cache: {
        enabled: false,
        ttlSeconds: 300,
        maxEntryBytes: 1048576,
        maxTotalBytes: 67108864,
        accountShare: 0.25,
        hitPrice: { numerator: 0n, denominator: 1n },
      },
      sticky: { maxEntries: 100_000, accountShare: 0.25 },
      pdf: { maxBytes: 20 * 1024 * 1024, maxPages: 500, maxChars: 2_000_000, timeoutMs: 10_000 },
      records: { retentionDays: null, pruneIntervalMs: 3_600_000 },
      retention: { webhookDeliveriesDays: 30, mcpToolCallsDays: 30, budgetAlertsDays: 90, pruneIntervalMs: 3_600_000 },
      webhooks: { allowPrivateAddresses: false, timeoutMs: 10_000, retryBaseMs: 30_000, maxAttempts: 8, balanceLowUsd: null },
      alerts: { thresholds: [50, 80, 100] },
      search: null,
      mcp: {
        allowPrivateAddresses: false,
        allowedHosts: [],
        callTimeoutMs: 30_000,
        maxResultBytes: 1_048_576,
        maxToolTurns: 8,
        totalTimeoutMs: 300_000,
        toolsTtlMs: 60_000,
      },
      mcpServers: [],
      smtp: null,
      oidc: null,
      byok: { masterKey: null, feeBasisPoints: 0 },
    });
  });

  it('reads search: the web search backend, its key by reference and its price; refuses what is missing or unknown', () => {
    const c = loadConfig({
      path: writeConfig('search:\n  kind: brave\n  url: https://api.search.brave.com/\n  key: ${BRAVE_KEY}\n  price_per_search: "0.005"\n'),
      env: { BRAVE_KEY: 'bk-1' },
    }).search;
    assert.deepEqual(c, {
      kind: 'brave',
      url: 'https://api.search.brave.com',
      key: 'bk-1',
      pricePerSearch: '0.005',
      timeoutMs: 10_000,
      defaultResults: 5,
      allowPrivateAddresses: false,
    });
    const searx = loadConfig({
      path: writeConfig(
        'search: { kind: searxng, url: "http://searx:8080", price_per_search: 0, timeout_ms: 500, default_results: 8, allow_private_addresses: true }\n',
      ),
      env: {},
    }).search;
    assert.deepEqual(
      searx,
      { kind: 'searxng', url: 'http://searx:8080', pricePerSearch: '0', timeoutMs: 500, defaultResults: 8, allowPrivateAddresses: true },
      'SearXNG needs no key',
    );
    for (const [yaml, field] of [
      ['search: { kind: bing, url: "https://x", price_per_search: "0" }', /search\.kind/],
      ['search: { url: "https://x", price_per_search: "0" }', /search\.kind/],
      ['search: { kind: exa, price_per_search: "0", key: k }', /search\.url/],
      ['search: { kind: exa, url: "ftp://x", price_per_search: "0", key: k }', /search\.url/],
      ['search: { kind: exa, url: "https://u:p@x", price_per_search: "0", key: k }', /search\.url/],
      ['search: { kind: exa, url: "https://x", price_per_search: "0" }', /search\.key/],
      ['search: { kind: tavily, url: "https://x", key: k }', /search\.price_per_search/],
      ['search: { kind: tavily, url: "https://x", key: k, price_per_search: "-1" }', /search\.price_per_search/],
      ['search: { kind: tavily, url: "https://x", key: k, price_per_search: "0", default_results: 31 }', /search\.default_results/],
      ['search: { kind: tavily, url: "https://x", key: k, price_per_search: "0", engine: exa }', /search/],
    ] as const)
      assert.throws(() => loadConfig({ path: writeConfig(yaml + '\n'), env: {} }), field, yaml);
  });

  it('reads cache: enabled, TTL, bounds and hit_price as an exact fraction; refuses a price above 1 or unknown keys', () => {
    const c = loadConfig({
      path: writeConfig('cache:\n  enabled: true\n  ttl_seconds: 60\n  max_entry_bytes: 1000\n  hit_price: 0.125\n'),
      env: {},
    }).cache;
    assert.deepEqual(c, {
      enabled: true,
      ttlSeconds: 60,
      maxEntryBytes: 1000,
      maxTotalBytes: 67108864,
      accountShare: 0.25,
      hitPrice: { numerator: 125n, denominator: 1000n },
    });
    assert.equal(loadConfig({ path: writeConfig('cache: { account_share: 0.5 }\n'), env: {} }).cache.accountShare, 0.5);
    assert.equal(loadConfig({ path: writeConfig('cache: { account_share: 1 }\n'), env: {} }).cache.accountShare, 1);
    for (const bad of ['0', '1.5', 'half', '-0.1'])
      assert.throws(() => loadConfig({ path: writeConfig(`cache: { account_share: ${bad} }\n`), env: {} }), /cache\.account_share/);
    assert.deepEqual(loadConfig({ path: writeConfig('cache: { hit_price: full }\n'), env: {} }).cache.hitPrice, {
      numerator: 1n,
      denominator: 1n,
    });
    assert.throws(() => loadConfig({ path: writeConfig('cache: { hit_price: 1.5 }\n'), env: {} }), /cache\.hit_price/);
    assert.throws(() => loadConfig({ path: writeConfig('cache: { hit_price: half }\n'), env: {} }), /cache\.hit_price/);
    assert.throws(() => loadConfig({ path: writeConfig('cache: { size: 3 }\n'), env: {} }), /cache/);
  });

  it('reads mcp and mcp_servers: bounds, servers with ${ENV} headers; refuses unknown keys, bad names, twice-listed names and non-http URLs', () => {
    const yaml =
      'mcp: { max_tool_turns: 3, allow_private_addresses: true }\nmcp_servers:\n  - name: docs\n    url: https://mcp.example.com/mcp\n    headers: { Authorization: "Bearer ${TOKEN}" }\n    tools: [search]\n    accounts: [acct_1]\n  - { name: wiki, url: "http://10.0.0.1/mcp", transport: sse }\n';
    const c = loadConfig({ path: writeConfig(yaml), env: { TOKEN: 't0k' } });
    assert.equal(c.mcp.maxToolTurns, 3);
    assert.equal(c.mcp.allowPrivateAddresses, true);
    assert.deepEqual(c.mcpServers, [
      {
        name: 'docs',
        url: 'https://mcp.example.com/mcp',
        transport: 'auto',
        headers: { Authorization: 'Bearer t0k' },
        tools: ['search'],
        accounts: ['acct_1'],
      },
      { name: 'wiki', url: 'http://10.0.0.1/mcp', transport: 'sse', headers: {}, tools: null, accounts: null },
    ]);
    assert.throws(() => loadConfig({ path: writeConfig('mcp: { turns: 3 }\n'), env: {} }), /mcp\.turns/);
    assert.deepEqual(
      loadConfig({ path: writeConfig('mcp: { allowed_hosts: [MCP.Example.com, "*.tools.example", "*", "[::1]"] }\n'), env: {} }).mcp
        .allowedHosts,
      ['mcp.example.com', '*.tools.example', '*', '::1'],
    );
    assert.throws(
      () => loadConfig({ path: writeConfig('mcp: { allowed_hosts: ["https://x.example"] }\n'), env: {} }),
      /mcp\.allowed_hosts\[0\]/,
    );
    assert.throws(() => loadConfig({ path: writeConfig('mcp: { max_tool_turns: 0 }\n'), env: {} }), /mcp\.max_tool_turns/);
    assert.throws(
      () => loadConfig({ path: writeConfig('mcp_servers: [{ name: "a b", url: "https://x" }]\n'), env: {} }),
      /mcp_servers\[0\]\.name/,
    );
    assert.throws(
      () => loadConfig({ path: writeConfig('mcp_servers: [{ name: a, url: "ftp://x" }]\n'), env: {} }),
      /mcp_servers\[0\]\.url/,
    );
    assert.throws(() => loadConfig({ path: writeConfig('mcp_servers: [{ name: a }]\n'), env: {} }), /mcp_servers\[0\]\.url/);
    assert.throws(
      () => loadConfig({ path: writeConfig('mcp_servers: [{ name: a, url: "https://x" }, { name: a, url: "https://y" }]\n'), env: {} }),
      /mcp_servers\[1\]\.name/,
    );
    assert.throws(
      () => loadConfig({ path: writeConfig('mcp_servers: [{ name: a, url: "https://x", token: t }]\n'), env: {} }),
      /mcp_servers\[0\]\.token/,
    );
  });

  it('reads pdf: the bounds of PDF text extraction; refuses unknown keys and values out of range', () => {
    const c = loadConfig({
      path: writeConfig('pdf:\n  max_bytes: 1000\n  max_pages: 7\n  max_chars: 900\n  timeout_ms: 250\n'),
      env: {},
    }).pdf;
    assert.deepEqual(c, { maxBytes: 1000, maxPages: 7, maxChars: 900, timeoutMs: 250 });
    assert.equal(
      loadConfig({ path: writeConfig('pdf: { max_pages: 9 }\n'), env: {} }).pdf.timeoutMs,
      10_000,
      'the rest keep their defaults',
    );
    assert.throws(() => loadConfig({ path: writeConfig('pdf: { max_pages: 0 }\n'), env: {} }), /pdf\.max_pages/);
    assert.throws(() => loadConfig({ path: writeConfig('pdf: { timeout_ms: 1h }\n'), env: {} }), /pdf\.timeout_ms/);
    assert.throws(() => loadConfig({ path: writeConfig('pdf: { engine: ocr }\n'), env: {} }), /pdf/);
  });

  it('reads sticky: max_entries and account_share; refuses a share out of (0, 1] or unknown keys', () => {
    const c = loadConfig({ path: writeConfig('sticky:\n  max_entries: 5000\n  account_share: 0.1\n'), env: {} }).sticky;
    assert.deepEqual(c, { maxEntries: 5000, accountShare: 0.1 });
    assert.throws(() => loadConfig({ path: writeConfig('sticky: { account_share: 2 }\n'), env: {} }), /sticky\.account_share/);
    assert.throws(() => loadConfig({ path: writeConfig('sticky: { size: 3 }\n'), env: {} }), /sticky/);
  });

  it('reads metrics: enabled and a token (an unset ${VAR} token is no token); refuses unknown keys', () => {
    const on = loadConfig({ path: writeConfig('metrics:\n  token: ${METRICS_TOKEN}\n'), env: { METRICS_TOKEN: 'tok' } });
    assert.deepEqual(on.metrics, { enabled: true, token: 'tok' });
    const unset = loadConfig({ path: writeConfig('metrics:\n  token: ${METRICS_TOKEN}\n'), env: {} });
    assert.deepEqual(unset.metrics, { enabled: true });
    const off = loadConfig({ path: writeConfig('metrics:\n  enabled: false\n'), env: {} });
    assert.deepEqual(off.metrics, { enabled: false });
    assert.throws(() => loadConfig({ path: writeConfig('metrics:\n  port: 9100\n'), env: {} }), /metrics/);
    // overhead_header: a boolean, absent unless the file says (X-Switchyard-Overhead-Ms).
    assert.deepEqual(loadConfig({ path: writeConfig('metrics:\n  overhead_header: true\n'), env: {} }).metrics, {
      enabled: true,
      overheadHeader: true,
    });
    assert.throws(() => loadConfig({ path: writeConfig('metrics:\n  overhead_header: sometimes\n'), env: {} }), /metrics\.overhead_header/);
    // accounts.max_keys: a positive integer; unknown fields of the section are refused.
    assert.equal(loadConfig({ path: writeConfig('accounts:\n  max_keys: 5\n'), env: {} }).accounts.maxKeys, 5);
    for (const bad of ['accounts:\n  max_keys: 0\n', 'accounts:\n  max_keys: 2.5\n', 'accounts:\n  max_key: 5\n']) {
      assert.throws(() => loadConfig({ path: writeConfig(bad), env: {} }), /accounts\.max_key/, bad);
    }
  });

  it('reads tiers over the defaults, and moderation rules', () => {
    const config = loadConfig({
      path: writeConfig(`
tiers:
  free: { requests_per_minute: 5, requests_per_day: null, models: ["switchyard/*"] }
  partner: { name: Partner, requests_per_minute: 50, model_limits: { "a/b": { requests_per_minute: 2 } } }
moderation:
  rules: [{ name: spam, patterns: ["buy now"] }]
  upstream: { base_url: "http://127.0.0.1:1/v1", api_key: "\${MOD_KEY}" }
`),
      env: { MOD_KEY: 'secret' },
    });
    const free = config.tiers.find((t) => t.id === 'free')!;
    assert.equal(free.requestsPerMinute, 5);
    assert.equal(free.requestsPerDay, null);
    assert.equal(free.accountRequestsPerMinute, 40, 'fields not given keep the default');
    assert.deepEqual(free.models, ['switchyard/*']);
    const partner = config.tiers.find((t) => t.id === 'partner')!;
    assert.equal(partner.name, 'Partner');
    assert.deepEqual(partner.modelRequestsPerMinute, { 'a/b': 2 });
    assert.deepEqual(
      config.moderation.rules.map((r) => ({ name: r.name, patterns: r.patterns.map((x) => x.source) })),
      [{ name: 'spam', patterns: ['buy now'] }],
    );
    assert.equal(config.moderation.upstream?.apiKey, 'secret');
    assert.throws(() => loadConfig({ path: writeConfig('tiers: { x: { name: X } }'), env: {} }), /tiers\.x\.requests_per_minute/);
    assert.throws(
      () => loadConfig({ path: writeConfig('moderation: { rules: [{ name: a, patterns: ["("] }] }'), env: {} }),
      /moderation\.rules\[0\]\.patterns\[0\]/,
    );
  });

  it('refuses, at load, a moderation pattern the linear-time engine cannot run, naming the rule and why', () => {
    const load = (pattern: string) => () =>
      loadConfig({ path: writeConfig(`moderation: { rules: [{ name: echo, patterns: ["ok", '${pattern}'] }] }`), env: {} });
    assert.throws(
      load('(a)\\1'),
      /moderation\.rules\[0\]\.patterns\[1\].*rule "echo".*invalid escape sequence.*backreferences and lookaround are not supported/,
    );
    assert.throws(load('a(?=b)'), /rule "echo".*unsupported Perl syntax/);
    assert.throws(load('(?<!x)y'), /rule "echo"/);
    const config = loadConfig({
      path: writeConfig('moderation: { rules: [{ name: slow, patterns: ["^(a+)+$"] }], max_input_chars: 5000 }'),
      env: {},
    });
    assert.equal(config.moderation.maxInputChars, 5000);
  });

  it('takes the file from SWITCHYARD_CONFIG, and --config over it', () => {
    const fromEnv = writeConfig('server: { port: 9001 }');
    const fromFlag = writeConfig('server: { port: 9002 }');
    assert.equal(loadConfig({ env: { SWITCHYARD_CONFIG: fromEnv } }).server.port, 9001);
    assert.equal(loadConfig({ path: fromFlag, env: { SWITCHYARD_CONFIG: fromEnv } }).server.port, 9002);
  });

  it('reads every section', () => {
    const path = writeConfig(`
server: { host: 0.0.0.0, port: 9000 }
database: { path: /var/lib/switchyard/db.sqlite }
timeouts: { attempt_ms: 1000, request_ms: 5000, disconnect_grace_ms: 250, drain_ms: 1500, hold_grace_ms: 400, hold_journal_ms: 0 }
bootstrap: { credits: "25.5" }
sim: true
`);
    const config = loadConfig({ path, env: {} });
    assert.deepEqual([config.server.host, config.server.port], ['0.0.0.0', 9000]);
    assert.deepEqual(config.database, { path: '/var/lib/switchyard/db.sqlite' });
    assert.deepEqual(config.timeouts, {
      attemptMs: 1000,
      requestMs: 5000,
      disconnectGraceMs: 250,
      drainMs: 1500,
      holdGraceMs: 400,
      holdJournalMs: 0,
    });
    assert.deepEqual(config.bootstrap, { credits: '25.5' });
    assert.equal(config.sim, true);
  });

  it('reads the server limits and timeouts', () => {
    const config = parseConfig(
      {
        server: {
          body_limit_bytes: 4096,
          request_timeout_ms: 9000,
          headers_timeout_ms: '${HT}',
          keep_alive_timeout_ms: 7000,
          idle_timeout_ms: 6000,
          image_url_ttl_seconds: 120,
          image_url_max_bytes: 1000,
        },
      },
      { HT: '8000' },
    );
    assert.deepEqual(config.server, {
      host: '127.0.0.1',
      port: 8080,
      bodyLimitBytes: 4096,
      requestTimeoutMs: 9000,
      headersTimeoutMs: 8000,
      keepAliveTimeoutMs: 7000,
      idleTimeoutMs: 6000,
      imageUrlTtlSeconds: 120,
      imageUrlMaxBytes: 1000,
    });
    expectConfigError(() => parseConfig({ server: { image_url_ttl_seconds: 0 } }, {}), 'server.image_url_ttl_seconds', /./);
    expectConfigError(
      () => parseConfig({ server: { request_timeout_ms: 1000, headers_timeout_ms: 2000 } }, {}),
      'server.headers_timeout_ms',
      /must not exceed server.request_timeout_ms/,
    );
    expectConfigError(() => parseConfig({ server: { idle_timeout_ms: 0 } }, {}), 'server.idle_timeout_ms', /integer >= 1/);
  });

  it('resolves ${VAR} and ${VAR:-default} in values, never in structure', () => {
    const path = writeConfig(`
server: { host: "\${BIND:-0.0.0.0}", port: "\${GW_PORT:-8181}" }
providers:
  - id: local
    kind: openai
    base_url: "http://\${UP_HOST}:9100/v1"
    api_key: \${MISSING_KEY}
    headers: { X-Team: "\${TEAM:-core}", X-Literal: "$\${NOT_A_REF}" }
sim: \${SIM_MODE:-auto}
`);
    const config = loadConfig({ path, env: { UP_HOST: 'inference.internal', GW_PORT: '9300', TEAM: '' } });
    assert.deepEqual([config.server.host, config.server.port], ['0.0.0.0', 9300]);
    const [local] = config.providers;
    assert.equal(local?.baseUrl, 'http://inference.internal:9100/v1');
    assert.equal(local?.apiKey, undefined, 'an unset ${VAR} makes the optional field absent');
    assert.deepEqual(local?.headers, { 'X-Team': 'core', 'X-Literal': '${NOT_A_REF}' });
    assert.equal(config.sim, 'auto');

    const injected = parseConfig({ server: { host: '${EVIL}' } }, { EVIL: 'x\nport: 1' });
    assert.equal(injected.server.host, 'x\nport: 1');
    assert.equal(injected.server.port, 8080);
  });

  it('lets HOST and PORT override the file, and flags override both', () => {
    const path = writeConfig('server: { host: 10.0.0.1, port: 9000 }');
    const fromEnv = loadConfig({ path, env: { HOST: '0.0.0.0', PORT: '7000' } }).server;
    assert.deepEqual([fromEnv.host, fromEnv.port], ['0.0.0.0', 7000]);
    const fromFlag = loadConfig({ path, env: { HOST: '0.0.0.0', PORT: '7000' }, overrides: { port: 6000 } }).server;
    assert.deepEqual([fromFlag.host, fromFlag.port], ['0.0.0.0', 6000]);
    expectConfigError(() => loadConfig({ env: { PORT: 'eighty' } }), 'env PORT', /^env PORT: expected an integer from 0 to 65535/);
  });

  it('places the database by DATABASE_URL, then SWITCHYARD_DATA_DIR, then the file', () => {
    const path = writeConfig('database: { path: ./file.db }');
    assert.equal(loadConfig({ path, env: {} }).database.path, './file.db');
    assert.equal(loadConfig({ path, env: { SWITCHYARD_DATA_DIR: '/srv/data' } }).database.path, '/srv/data/switchyard.db');
    const env = { SWITCHYARD_DATA_DIR: '/srv/data', DATABASE_URL: 'sqlite:/tmp/x.db' };
    assert.equal(loadConfig({ path, env }).database.path, '/tmp/x.db');
    assert.equal(loadConfig({ env: { DATABASE_URL: 'sqlite://./rel.db' } }).database.path, './rel.db');
    assert.equal(loadConfig({ env: { DATABASE_URL: 'sqlite:///abs/path.db' } }).database.path, '/abs/path.db');
  });

  it('refuses other database schemes without echoing the URL', () => {
    assert.throws(
      () => loadConfig({ env: { DATABASE_URL: 'mysql://admin:hunter2@db/switchyard' } }),
      (err: unknown) => err instanceof ConfigError && /mysql scheme is not supported/.test(err.message) && !err.message.includes('hunter2'),
    );
  });

  it('takes a Postgres URL and a Redis URL from the env or the file (the env wins); sqlite: URLs in the file place the file', () => {
    const path = writeConfig('database: { url: "postgres://u:p@file/db" }\nredis: { url: "redis://file:6379" }');
    const fromFile = loadConfig({ path, env: {} });
    assert.equal(fromFile.database.url, 'postgres://u:p@file/db');
    assert.equal(fromFile.redis.url, 'redis://file:6379');
    const fromEnv = loadConfig({ path, env: { DATABASE_URL: 'postgresql://u:p@env/db', REDIS_URL: 'redis://env:6379' } });
    assert.equal(fromEnv.database.url, 'postgresql://u:p@env/db');
    assert.equal(fromEnv.redis.url, 'redis://env:6379');
    const sqlite = loadConfig({ path: writeConfig('database: { url: "sqlite:/tmp/from-url.db" }'), env: {} });
    assert.equal(sqlite.database.path, '/tmp/from-url.db');
    assert.equal(sqlite.database.url, undefined);
  });

  it('takes redis.command_timeout_ms (10..60000) beside REDIS_URL, and refuses one out of range naming it', () => {
    const config = loadConfig({ path: writeConfig('redis: { command_timeout_ms: 5000 }'), env: { REDIS_URL: 'redis://env:6379' } });
    assert.deepEqual(config.redis, { url: 'redis://env:6379', commandTimeoutMs: 5000 });
    assert.throws(() => loadConfig({ path: writeConfig('redis: { command_timeout_ms: 0 }'), env: {} }), /redis\.command_timeout_ms/);
  });

  it('converts YAML-number prices through their exact decimal text', () => {
    const config = parseConfig(
      {
        models: [
          { id: 'acme/x', endpoints: [{ provider: 'p', pricing: { prompt: 0.0000025, completion: 1e-7, cache_read: '0.00000125000' } }] },
        ],
      },
      {},
    );
    assert.deepEqual(config.models[0]?.endpoints?.[0]?.pricing, { prompt: '0.0000025', completion: '0.0000001', cache_read: '0.00000125' });
  });

  it('takes only known parameter names in supported_parameters (a typo would silently drop the parameter)', () => {
    const pricing = { prompt: '0.000001', completion: '0.000002' };
    const config = parseConfig(
      { models: [{ id: 'a/b', endpoints: [{ provider: 'p', pricing, supported_parameters: ['temperature', 'tools'] }] }] },
      {},
    );
    assert.deepEqual(config.models[0]?.endpoints?.[0]?.supportedParameters, ['temperature', 'tools']);
    expectConfigError(
      () =>
        parseConfig(
          { models: [{ id: 'a/b', endpoints: [{ provider: 'p', pricing, supported_parameters: ['temperature', 'tempreature'] }] }] },
          {},
        ),
      'models[0].endpoints[0].supported_parameters[1]',
      /temperature/,
    );
  });

  it('reads created as seconds or as a date', () => {
    const config = parseConfig(
      {
        models: [
          { id: 'a/b', created: '2025-04-14' },
          { id: 'a/c', created: 1700000000 },
        ],
      },
      {},
    );
    assert.equal(config.models[0]?.created, 1744588800);
    assert.equal(config.models[1]?.created, 1700000000);
  });
});

describe('loadConfig errors name the field', () => {
  it('an unknown provider kind', () => {
    expectConfigError(
      () => parseConfig({ providers: [{ id: 'x', kind: 'opneai', base_url: 'http://h' }] }, {}),
      'providers[0].kind',
      /^config providers\[0\]\.kind: expected one of openai, .*sim.*, got "opneai"\. Did you mean "openai"\?$/,
    );
  });

  it('a misspelt field', () => {
    expectConfigError(
      () => parseConfig({ providers: [{ id: 'x', kind: 'openai', bse_url: 'http://h' }] }, {}),
      'providers[0].bse_url',
      /unknown field "bse_url"\. Did you mean "base_url"\? Known fields of providers\[0\]: id, kind, name, base_url/,
    );
  });

  it('a wrong shape', () => {
    expectConfigError(() => parseConfig({ providers: { id: 'x' } }, {}), 'providers', /expected a list, got a mapping/);
    expectConfigError(() => parseConfig({ server: { port: 70000 } }, {}), 'server.port', /expected an integer from 0 to 65535, got 70000/);
    expectConfigError(() => parseConfig({ sim: 'maybe' }, {}), 'sim', /expected true, false or auto/);
    expectConfigError(() => parseConfig({ timeouts: { attempt_ms: 0 } }, {}), 'timeouts.attempt_ms', /integer >= 1/);
  });

  it('missing or malformed prices', () => {
    expectConfigError(
      () => parseConfig({ models: [{ id: 'a/b', endpoints: [{ provider: 'p' }] }] }, {}),
      'models[0].endpoints[0].pricing',
      /required/,
    );
    expectConfigError(
      () => parseConfig({ models: [{ id: 'a/b', endpoints: [{ provider: 'p', pricing: { prompt: '0.000001' } }] }] }, {}),
      'models[0].endpoints[0].pricing.completion',
      /required/,
    );
    expectConfigError(
      () => parseConfig({ models: [{ id: 'a/b', endpoints: [{ provider: 'p', pricing: { prompt: '$1', completion: '0' } }] }] }, {}),
      'models[0].endpoints[0].pricing.prompt',
      /not a decimal number/,
    );
    expectConfigError(
      () => parseConfig({ models: [{ id: 'a/b', endpoints: [{ provider: 'p', pricing: { prompt: '-1', completion: '0' } }] }] }, {}),
      'models[0].endpoints[0].pricing.prompt',
      /must not be negative/,
    );
  });

  it('bad ids, capabilities and duplicates', () => {
    expectConfigError(() => parseConfig({ models: [{ id: 'no-author' }] }, {}), 'models[0].id', /<author>\/<name>/);
    expectConfigError(
      () => parseConfig({ models: [{ id: 'a/b', capabilities: ['text', 'telepathy'] }] }, {}),
      'models[0].capabilities[1]',
      /expected one of text/,
    );
    expectConfigError(() => parseConfig({ providers: [{ id: 'a/b' }] }, {}), 'providers[0].id', /no '\/'/);
    expectConfigError(() => parseConfig({ providers: [{ id: 'p' }, { id: 'p' }] }, {}), 'providers[1].id', /duplicate provider id "p"/);
    for (const bad of [0, 2.5, '10']) {
      expectConfigError(
        () => parseConfig({ providers: [{ id: 'p', kind: 'openai', base_url: 'http://h', options: { max_embedding_inputs: bad } }] }, {}),
        'providers[0].options.max_embedding_inputs',
        /whole number of at least 1/,
      );
    }
    expectConfigError(() => parseConfig({ models: [{ id: 'a/b' }, { id: 'a/b' }] }, {}), 'models[1].id', /duplicate model id/);
  });

  it('a bad ${} reference', () => {
    expectConfigError(
      () => parseConfig({ providers: [{ id: 'p', api_key: '${not valid}' }] }, {}),
      'providers[0].api_key',
      /not a valid environment reference/,
    );
  });

  it('a missing file, and invalid YAML without quoting its source', () => {
    expectConfigError(() => loadConfig({ path: join(dir, 'absent.yaml'), env: {} }), '', /cannot read .*absent\.yaml: no such file/);
    const path = writeConfig('providers:\n  - id: x\n    api_key: sk-secret-value\n    api_key: again\n');
    assert.throws(
      () => loadConfig({ path, env: {} }),
      (err: unknown) => err instanceof ConfigError && /is not valid YAML/.test(err.message) && !err.message.includes('sk-secret-value'),
    );
  });

  it('never echoes a secret in a type error', () => {
    assert.throws(
      () =>
        parseConfig({ providers: [{ id: 'p', kind: 'openai', base_url: 'http://h', timeout_ms: '${KEY}' }] }, { KEY: 'sk-very-secret' }),
      (err: unknown) => err instanceof ConfigError && err.path === 'providers[0].timeout_ms' && !err.message.includes('sk-very-secret'),
    );
  });
});
