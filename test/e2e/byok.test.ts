import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Bring your own key (docs/byok.md), through real HTTP against an OpenAI emulator that
// records which key each request carried: the account's own key reaches the upstream, is
// charged only the fee (with $0 credits), `only` never falls back to the operator's key,
// `prefer` does on a 401, and the key is never shown again nor readable in the database file.

const OPERATOR_KEY = 'sk-operator-Q9xL2mV7bT4nR8wZ';
const ACCOUNT_KEY = 'sk-account-own-H3kP6sJ1dF5gY0uC';
const OTHER_KEY = 'sk-account-two-M2nB8vC4xZ7lK1jH';
const MASTER = randomBytes(32).toString('base64');

function keyOf(headers: Record<string, unknown>): string {
  return String(headers.authorization ?? '').replace(/^Bearer /, '');
}

const yaml = (base: string, fee = '0') => `sim: false
byok: { master_key: "env:BYOK_MASTER", fee_percent: ${fee} }
webhooks: { allow_private_addresses: true }
providers:
  - id: acme-up
    kind: openai
    base_url: "${base}"
    api_key: "${OPERATOR_KEY}"
  - id: spare
    kind: openai
    base_url: "${base}"
    api_key: "${OPERATOR_KEY}"
models:
  - id: acme/own
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: acme-up
        model: m-own
        pricing: { prompt: "0.000001", completion: "0.000002" }
  - id: acme/two
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: acme-up
        model: m-two
        pricing: { prompt: "0.000001", completion: "0.000002" }
      - provider: spare
        model: m-two-spare
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

describe('bring your own key', () => {
  let up: OpenAIChatEmulator;
  let gw: TestGateway;
  let mgmt: string;
  let admin: string;
  const log: string[] = [];
  const lines: string[] = [];

  before(async () => {
    up = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: yaml(up.baseUrl),
      credits: '0',
      env: { BYOK_MASTER: MASTER },
      log: (m) => log.push(m),
      logDestination: { write: (l) => lines.push(l) },
    });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    admin = (await createAdminKey(gw)).key;
  });
  after(async () => {
    await gw.close();
    await up.close();
  });
  afterEach(() => {
    up.reset();
    up.refusedKeys.clear();
  });

  const ask = (model: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
  const put = (provider: string, body: unknown, key = mgmt) => call('PUT', `${gw.origin}/api/v1/byok/${provider}`, key, body);
  const seen = () => up.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => keyOf(r.headers as Record<string, unknown>));

  test('without credits and without a key of its own, the account is refused (402): the baseline', async () => {
    const res = await ask('acme/own');
    assert.equal(res.status, 402, res.text);
    assert.deepEqual(seen(), []);
  });

  test('a stored key is checked at the provider (GET /models with it), listed by label and last four only, and never shown', async () => {
    const res = await put('acme-up', { key: ACCOUNT_KEY, mode: 'only', label: 'team key' });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const check = up.requests.find((r) => r.method === 'GET' && r.path === '/v1/models');
    assert.equal(keyOf(check!.headers as Record<string, unknown>), ACCOUNT_KEY, 'the check did not carry the account key');
    assert.deepEqual(
      { ...res.json.data, created_at: 'x', updated_at: 'x' },
      {
        provider: 'acme-up',
        label: 'team key',
        last_four: ACCOUNT_KEY.slice(-4),
        mode: 'only',
        created_at: 'x',
        updated_at: 'x',
        last_failure_at: null,
        last_failure: null,
      },
    );
    const list = await call('GET', `${gw.origin}/api/v1/byok`, mgmt);
    assert.equal(list.status, 200);
    assert.equal(list.json.data.length, 1);
    assert.equal(JSON.stringify(list.json).includes(ACCOUNT_KEY), false);
    const viaAdmin = await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/byok`, admin);
    assert.equal(viaAdmin.status, 200);
    assert.deepEqual(viaAdmin.json.data, list.json.data);
    assert.equal(JSON.stringify(viaAdmin.json).includes(ACCOUNT_KEY), false);
    const audit = await call('GET', `${gw.origin}/api/v1/admin/audit`, admin);
    assert.equal(JSON.stringify(audit.json).includes(ACCOUNT_KEY), false);
    assert.equal(
      (audit.json.data as any[]).some((e) => e.action === 'byok.set' && e.details.last_four === ACCOUNT_KEY.slice(-4)),
      true,
    );
  });

  test('a key the provider refuses is not stored: 400 byok_key_invalid naming the failure, not the key', async () => {
    up.refusedKeys.add(OTHER_KEY);
    const res = await put('spare', { key: OTHER_KEY, mode: 'prefer' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'byok_key_invalid');
    assert.match(res.json.error.message, /refused the key \(HTTP 401/);
    assert.equal(JSON.stringify(res.json).includes(OTHER_KEY), false);
    assert.equal(
      (await call('GET', `${gw.origin}/api/v1/byok`, mgmt)).json.data.some((k: any) => k.provider === 'spare'),
      false,
    );
    const unknown = await put('nope', { key: OTHER_KEY, mode: 'prefer' });
    assert.equal(unknown.status, 404);
    const badMode = await put('spare', { key: OTHER_KEY, mode: 'always' });
    assert.equal(badMode.status, 400);
  });

  /** The account's balance back to $0 (after a test that gave it credits). */
  const zeroBalance = async () => {
    await gw.flush();
    const usd = String((await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin)).json.data.balance_usd);
    if (Number(usd) !== 0)
      await gw.services.accountService.adjustCredits(gw.accountId, usd.startsWith('-') ? usd.slice(1) : `-${usd}`, 'test');
  };
  const record = async (id: string) =>
    ((await (await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as any).data;

  test('a BYOK request reaches the upstream with the account key and, at fee 0, passes and is charged nothing with $0 credits', async () => {
    const res = await ask('acme/own');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(seen(), [ACCOUNT_KEY]);
    await gw.flush();
    const rec = await record(res.json.id);
    assert.equal(rec.byok, true);
    assert.equal(rec.total_cost, 0);
    assert.ok(rec.tokens_completion > 0);
    const activity = await call('GET', `${gw.origin}/api/v1/activity`, mgmt);
    assert.equal(activity.json.data.find((r: any) => r.id === res.json.id).byok, true);
    // The request log never holds the key.
    assert.equal(
      lines.some((l) => l.includes(ACCOUNT_KEY)),
      false,
    );
  });

  test('with byok.fee_percent 10 (a reload), a BYOK request is held and charged 10 % of its price', async () => {
    const { loadConfig } = await import('../../src/config/load-config.ts');
    const { writeFileSync } = await import('node:fs');
    const path = join(gw.dir, 'fee.yaml');
    writeFileSync(path, yaml(up.baseUrl, '10'));
    const load = () => {
      const c = loadConfig({ path, env: { BYOK_MASTER: MASTER, SWITCHYARD_DATA_DIR: gw.dir } });
      c.server = { ...c.server, host: '127.0.0.1', port: 0 };
      return c;
    };
    const reloaded = gw.services.inForce.reload(load);
    assert.equal(reloaded.ok, true, JSON.stringify(reloaded));
    try {
      // The hold is the fee's share of the worst case: $0.0064 of $0.064 here, refused with $0.001, taken with $0.01.
      await gw.services.accountService.addCredits(gw.accountId, '0.001', 'test');
      const refused = await ask('acme/own');
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.json.error.metadata.required, '0.0064');
      await gw.services.accountService.addCredits(gw.accountId, '0.009', 'test');
      const res = await ask('acme/own');
      assert.equal(res.status, 200, res.text);
      await gw.flush();
      const rec = await record(res.json.id);
      const fullUsd = rec.tokens_prompt * 0.000001 + rec.tokens_completion * 0.000002;
      assert.ok(Math.abs(rec.total_cost - fullUsd / 10) < 1e-9, `charged ${rec.total_cost}, full price ${fullUsd}`);
      assert.equal(rec.byok, true);
    } finally {
      writeFileSync(path, yaml(up.baseUrl, '0'));
      assert.equal(gw.services.inForce.reload(load).ok, true);
      await zeroBalance();
    }
  });

  test('`only`: a 401 on the account key is a clear BYOK error, alerted and recorded, never retried with the operator key', async () => {
    const hook = await call('POST', `${gw.origin}/api/v1/webhooks`, mgmt, { url: 'http://127.0.0.1:9/hook', events: ['byok.key_failed'] });
    assert.equal(hook.status, 201, JSON.stringify(hook.json));
    up.refusedKeys.add(ACCOUNT_KEY);
    const res = await ask('acme/own');
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.error.code, 'byok_key_rejected');
    assert.match(res.json.error.message, /own key \(BYOK\) for provider "acme-up"/);
    assert.equal(res.text.includes(ACCOUNT_KEY), false);
    assert.deepEqual(seen(), [ACCOUNT_KEY], 'the operator key was used');
    // The failure is kept on the key and an event queued for the account's webhook.
    let listed: any;
    for (let i = 0; i < 200; i++) {
      listed = (await call('GET', `${gw.origin}/api/v1/byok`, mgmt)).json.data[0];
      if (listed.last_failure_at !== null) break;
      await new Promise((r) => setImmediate(r));
    }
    assert.match(listed.last_failure, /401/);
    let deliveries: any[] = [];
    for (let i = 0; i < 200 && deliveries.length === 0; i++) {
      deliveries = (await call('GET', `${gw.origin}/api/v1/webhooks/${hook.json.data.id}/deliveries`, mgmt)).json.data;
      if (deliveries.length === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(deliveries[0].type, 'byok.key_failed');
    assert.equal(
      log.some((l) => l.includes(ACCOUNT_KEY)),
      false,
    );
    await call('DELETE', `${gw.origin}/api/v1/webhooks/${hook.json.data.id}`, mgmt);
  });

  test('`only` on one provider: the model routes on to another provider (the operator key there), never acme-up with the operator key', async () => {
    up.refusedKeys.add(ACCOUNT_KEY);
    await gw.services.accountService.addCredits(gw.accountId, '5', 'test');
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/two', provider: { order: ['acme-up', 'spare'] }, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    const calls = up.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => [keyOf(r.headers as Record<string, unknown>), r.body.model]);
    assert.deepEqual(calls, [
      [ACCOUNT_KEY, 'm-two'],
      [OPERATOR_KEY, 'm-two-spare'],
    ]);
    await zeroBalance();
  });

  test('`prefer`: a 401 on the account key falls back to the operator key on the same provider, at full price', async () => {
    up.refusedKeys.clear();
    assert.equal((await put('acme-up', { key: ACCOUNT_KEY, mode: 'prefer' })).status, 200);
    await gw.services.accountService.addCredits(gw.accountId, '5', 'test');
    up.reset();
    up.refusedKeys.add(ACCOUNT_KEY);
    const res = await ask('acme/own');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(seen(), [ACCOUNT_KEY, OPERATOR_KEY]);
    await gw.flush();
    const rec = (await (
      await fetch(`${gw.baseUrl}/generation?id=${res.json.id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as any;
    assert.equal(rec.data.byok, false);
    assert.equal((rec.data.attempts as any[])[0].byok, true);
    await zeroBalance();
  });

  test('`prefer`: a 429 on the account key moves on to the operator key, the uptime and circuit of the endpoint as they were', async () => {
    await gw.services.accountService.addCredits(gw.accountId, '5', 'test');
    const endpointHealth = async () =>
      ((await call('GET', `${gw.origin}/api/v1/admin/health`, admin)).json.data.providers as any[])
        .find((p) => p.id === 'acme-up')
        .endpoints.find((e: any) => e.model === 'acme/own');
    assert.equal((await ask('acme/own')).status, 200);
    const before = await endpointHealth();
    assert.equal(before.uptime_last_5m, 100, JSON.stringify(before));
    up.reset();
    up.enqueue({ fault: 'rate-limit', retryAfterSeconds: 30 });
    const res = await ask('acme/own');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(seen(), [ACCOUNT_KEY, OPERATOR_KEY]);
    const after = await endpointHealth();
    assert.equal(after.circuit, 'closed');
    assert.equal(after.uptime_last_5m, 100, `the account key's 429 counted against the endpoint: ${JSON.stringify(after)}`);
    await zeroBalance();
  });

  test('`prefer` with $0 credits: the account key alone carries the request (no fallback it cannot pay for)', async () => {
    await zeroBalance();
    up.refusedKeys.clear();
    const res = await ask('acme/own');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(seen(), [ACCOUNT_KEY]);
  });

  test('the key is unreadable in the SQLite database file', async () => {
    await gw.flush();
    gw.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const files = readdirSync(gw.dir).filter((f) => f.includes('.db'));
    assert.ok(files.length > 0);
    for (const f of files) {
      const bytes = readFileSync(join(gw.dir, f));
      assert.equal(bytes.includes(Buffer.from(ACCOUNT_KEY)), false, `${f} holds the key in clear`);
      assert.equal(bytes.includes(Buffer.from(ACCOUNT_KEY.slice(4, -4))), false, `${f} holds part of the key`);
    }
    const row = gw.db.prepare('SELECT * FROM byok_keys').get() as Record<string, unknown>;
    assert.equal(JSON.stringify(row).includes(ACCOUNT_KEY), false);
    assert.match(String(row.ciphertext), /^v1\./);
  });

  test('DELETE removes the key: the operator key serves again (and credits are needed again)', async () => {
    const res = await call('DELETE', `${gw.origin}/api/v1/byok/acme-up`, mgmt);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { deleted: true, provider: 'acme-up' });
    assert.equal((await call('DELETE', `${gw.origin}/api/v1/byok/acme-up`, mgmt)).status, 404);
    assert.equal((await ask('acme/own')).status, 402);
    // The admin API stores one for the account, too.
    const stored = await call('PUT', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/byok/acme-up`, admin, {
      key: ACCOUNT_KEY,
      mode: 'only',
    });
    assert.equal(stored.status, 200, JSON.stringify(stored.json));
    assert.equal((await ask('acme/own')).status, 200);
    assert.equal((await call('DELETE', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/byok/acme-up`, admin)).status, 200);
  });

  test('an API key of the account cannot manage its BYOK keys (management key or session only)', async () => {
    assert.equal((await call('GET', `${gw.origin}/api/v1/byok`, gw.key)).status, 403);
    assert.equal((await call('PUT', `${gw.origin}/api/v1/byok/acme-up`, gw.key, { key: ACCOUNT_KEY, mode: 'only' })).status, 403);
  });
});

describe('bring your own key without a master key', () => {
  test('the BYOK routes answer 503 byok_not_configured naming byok.master_key', async () => {
    const gw = await startTestGateway();
    try {
      const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
      for (const [method, path, body] of [
        ['GET', '/api/v1/byok', undefined],
        ['PUT', '/api/v1/byok/sim', { key: 'k-123456789', mode: 'only' }],
        ['DELETE', '/api/v1/byok/sim', undefined],
      ] as const) {
        const res = await call(method, `${gw.origin}${path}`, mgmt, body);
        assert.equal(res.status, 503, `${method} ${path}: ${JSON.stringify(res.json)}`);
        assert.equal(res.json.error.code, 'byok_not_configured');
        assert.match(res.json.error.message, /byok\.master_key/);
      }
    } finally {
      await gw.close();
    }
  });
});
