import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { usdToNanos } from '../../src/money/money.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allPages, call, createAdminKey } from '../support/admin-client.ts';

const chat = { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] };

describe('admin API', () => {
  let gw: TestGateway;
  let admin: { key: string; hash: string; label: string };
  let api: string;
  before(async () => {
    gw = await startTestGateway({ credits: '10' });
    admin = await createAdminKey(gw);
    api = `${gw.origin}/api/v1/admin`;
  });
  after(() => gw.close());

  test('admin routes answer 401 without a valid key and 403 to API and management keys, in the error record shape', async () => {
    const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/accounts'],
      ['POST', '/accounts', { name: 'x' }],
      ['GET', `/accounts/${gw.accountId}`],
      ['PATCH', `/accounts/${gw.accountId}`, { name: 'x' }],
      ['POST', `/accounts/${gw.accountId}/credits`, { kind: 'grant', amount: '1', reason: 'r' }],
      ['GET', `/accounts/${gw.accountId}/ledger`],
      ['GET', '/keys'],
      ['POST', `/accounts/${gw.accountId}/keys`, {}],
      ['PATCH', `/keys/${gw.keyHash}`, { disabled: true }],
      ['GET', '/usage'],
      ['GET', '/generations'],
      ['GET', '/generations/gen-x'],
      ['GET', '/health'],
      ['GET', '/audit'],
    ];
    for (const [method, path, body] of routes) {
      const none = await call(method, api + path, null, body);
      assert.equal(none.status, 401, `${method} ${path} without a key`);
      assert.equal(none.json.error.code, 'authentication_required');
      for (const key of [gw.key, mgmt]) {
        const res = await call(method, api + path, key, body);
        assert.equal(res.status, 403, `${method} ${path} with a non-admin key`);
        assert.equal(res.json.error.code, 'forbidden');
        assert.equal(res.json.error.type, 'permission_error');
        assert.equal(typeof res.json.error.message, 'string');
      }
    }
    // Nothing changed: the refused writes left no trace.
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.name, 'test account');
    assert.equal((await gw.services.stores.accounts.getKey(gw.keyHash))!.isActive, true);
  });

  test('an admin key cannot call models', async () => {
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${admin.key}` });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.code, 'forbidden');
  });

  test('accounts: create, search (by name or id), pages, show, update name/tier/default model/limits, deactivate and reactivate', async () => {
    const made = [];
    for (const name of ['Alpha Corp', 'alpha two', 'Beta']) {
      const res = await call('POST', `${api}/accounts`, admin.key, { name, type: 'organization', tier: 'free', credits: '1.5' });
      assert.equal(res.status, 201);
      assert.equal(res.json.data.balance_usd, '1.5');
      made.push(res.json.data);
    }
    const found = await call('GET', `${api}/accounts?search=ALPHA`, admin.key);
    assert.deepEqual(
      found.json.data.map((a: any) => a.name),
      ['Alpha Corp', 'alpha two'],
    );
    // An id (acct_…, with its '_') is found as given, not as an escaped LIKE pattern.
    const byId = await call('GET', `${api}/accounts?search=${encodeURIComponent(made[2].id)}`, admin.key);
    assert.deepEqual(
      byId.json.data.map((a: any) => a.id),
      [made[2].id],
    );
    const paged = await allPages(`${api}/accounts?limit=1`, admin.key);
    const ids = paged.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const a of made) assert.ok(ids.includes(a.id));
    assert.ok(ids.includes(gw.accountId));

    const id = made[2].id;
    assert.equal((await call('GET', `${api}/accounts/${id}`, admin.key)).json.data.name, 'Beta');
    assert.equal((await call('GET', `${api}/accounts/acct_nope`, admin.key)).status, 404);
    const patched = await call('PATCH', `${api}/accounts/${id}`, admin.key, {
      name: 'Beta Ltd',
      tier: 'tier2',
      default_model: 'switchyard/sim-fast',
      limits: { requests_per_minute: 7, requests_per_day: null },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.data.name, 'Beta Ltd');
    assert.equal(patched.json.data.tier, 'tier2');
    assert.equal(patched.json.data.default_model, 'switchyard/sim-fast');
    assert.deepEqual(patched.json.data.limits_override, { requests_per_minute: 7, requests_per_day: null });
    const lockout = await call('PATCH', `${api}/accounts/${gw.accountId}`, admin.key, { is_active: false });
    assert.equal(lockout.status, 400, 'an admin key does not deactivate its own account');
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.isActive, true);
    const badTier = await call('PATCH', `${api}/accounts/${id}`, admin.key, { tier: 'nope' });
    assert.equal(badTier.status, 400);
    assert.equal(badTier.json.error.code, 'invalid_parameter');

    // Deactivation locks the account's keys out at once; reactivation lets them in again.
    const key = (await call('POST', `${api}/accounts/${id}/keys`, admin.key, { name: 'app' })).json.key;
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);
    assert.equal((await call('PATCH', `${api}/accounts/${id}`, admin.key, { is_active: false })).json.data.is_active, false);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 401);
    assert.equal((await call('PATCH', `${api}/accounts/${id}`, admin.key, { is_active: true })).json.data.is_active, true);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);
  });

  test('credits granted and adjusted through the API equal the ledger and /api/v1/credits', async () => {
    const acct = (await call('POST', `${api}/accounts`, admin.key, { name: 'credits' })).json.data;
    const key = (await call('POST', `${api}/accounts/${acct.id}/keys`, admin.key, { name: 'k' })).json.key;
    const grant = await call('POST', `${api}/accounts/${acct.id}/credits`, admin.key, {
      kind: 'grant',
      amount: '12.5',
      reason: 'invoice 17',
    });
    assert.equal(grant.status, 201);
    assert.equal(grant.json.data.balance_usd, '12.5');
    assert.equal(grant.json.data.entry.kind, 'credit');
    assert.equal(grant.json.data.entry.note, 'invoice 17');
    const adjust = await call('POST', `${api}/accounts/${acct.id}/credits`, admin.key, {
      kind: 'adjustment',
      amount: '-0.000000001',
      reason: 'rounding',
    });
    assert.equal(adjust.json.data.balance_usd, '12.499999999');
    for (const bad of [
      { kind: 'grant', amount: '-1', reason: 'x' },
      { kind: 'grant', amount: 'ten', reason: 'x' },
      { kind: 'adjustment', amount: '1' },
      { kind: 'gift', amount: '1', reason: 'x' },
    ]) {
      const res = await call('POST', `${api}/accounts/${acct.id}/credits`, admin.key, bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    const priced = { ...chat, model: 'switchyard/sim-pro' };
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, priced, { authorization: `Bearer ${key}` })).status, 200);
    await gw.flush();

    const ledger = await allPages(`${api}/accounts/${acct.id}/ledger?limit=1`, admin.key);
    assert.deepEqual(
      ledger.map((e) => e.kind),
      ['charge', 'adjustment', 'credit'],
    );
    const sum = ledger.reduce((s, e) => s + usdToNanos(e.amount_usd), 0n);
    const shown = (await call('GET', `${api}/accounts/${acct.id}`, admin.key)).json.data;
    assert.equal(usdToNanos(shown.balance_usd), sum);
    const credits = (await call('GET', `${gw.origin}/api/v1/credits`, key)).json.data;
    assert.equal(usdToNanos(String(credits.total_credits)), usdToNanos('12.499999999'));
    assert.equal(usdToNanos(String(credits.total_usage)), -usdToNanos(ledger[0].amount_usd));
    assert.ok(usdToNanos(String(credits.total_usage)) > 0n);
    assert.equal(usdToNanos(String(credits.total_credits)) - usdToNanos(String(credits.total_usage)), sum);
  });

  test('keys of any account: list, create API and management keys (never admin keys), disable and enable', async () => {
    const listed = await call('GET', `${api}/keys?account=${gw.accountId}`, admin.key);
    const kinds = new Map(listed.json.data.map((k: any) => [k.hash, k.kind]));
    assert.equal(kinds.get(admin.hash), 'admin');
    assert.equal(kinds.get(gw.keyHash), 'api');
    assert.equal(JSON.stringify(listed.json).includes(admin.key), false, 'never a key itself');
    const mgmt = await call('POST', `${api}/accounts/${gw.accountId}/keys`, admin.key, { name: 'dash', kind: 'management' });
    assert.equal(mgmt.json.data.kind, 'management');
    assert.equal((await call('POST', `${api}/accounts/${gw.accountId}/keys`, admin.key, { kind: 'admin' })).status, 400);
    const made = await call('POST', `${api}/accounts/${gw.accountId}/keys`, admin.key, { name: 'tmp', limit: '2' });
    assert.equal(made.json.data.limit_usd, '2');
    const hash = made.json.data.hash;
    assert.equal((await call('PATCH', `${api}/keys/${hash}`, admin.key, { disabled: true })).json.data.disabled_by, 'operator');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${made.json.key}` })).status, 401);
    assert.equal((await call('PATCH', `${api}/keys/${hash}`, admin.key, { disabled: false })).json.data.disabled, false);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${made.json.key}` })).status, 200);
    // The account's management key neither sees nor touches the admin key.
    const own = await call('GET', `${gw.origin}/api/v1/keys`, mgmt.json.key);
    assert.equal(
      own.json.data.some((k: any) => k.hash === admin.hash),
      false,
    );
    assert.equal((await call('DELETE', `${gw.origin}/api/v1/keys/${admin.hash}`, mgmt.json.key)).status, 404);
  });

  test('every admin action is in the audit log: who (key hash, label, account), what, on what, when', async () => {
    const started = new Date().toISOString();
    const acct = (await call('POST', `${api}/accounts`, admin.key, { name: 'audited' })).json.data;
    await call('PATCH', `${api}/accounts/${acct.id}`, admin.key, { tier: 'tier2' });
    await call('PATCH', `${api}/accounts/${acct.id}`, admin.key, { is_active: false });
    await call('PATCH', `${api}/accounts/${acct.id}`, admin.key, { is_active: true });
    await call('POST', `${api}/accounts/${acct.id}/credits`, admin.key, { kind: 'grant', amount: '3', reason: 'promo' });
    await call('POST', `${api}/accounts/${acct.id}/credits`, admin.key, { kind: 'adjustment', amount: '-1', reason: 'refund' });
    const key = (await call('POST', `${api}/accounts/${acct.id}/keys`, admin.key, { name: 'k' })).json;
    await call('PATCH', `${api}/keys/${key.data.hash}`, admin.key, { disabled: true });
    await call('PATCH', `${api}/keys/${key.data.hash}`, admin.key, { disabled: false });
    // A refused change is not an action.
    await call('PATCH', `${api}/accounts/${acct.id}`, admin.key, { tier: 'nope' });

    const log = await allPages(`${api}/audit?limit=2`, admin.key);
    const mine = log.filter((e) => e.target === acct.id || e.target === key.data.hash).reverse();
    assert.deepEqual(
      mine.map((e) => e.action),
      [
        'account.create',
        'account.update',
        'account.deactivate',
        'account.reactivate',
        'credits.grant',
        'credits.adjust',
        'key.create',
        'key.disable',
        'key.enable',
      ],
    );
    for (const e of mine) {
      assert.deepEqual(e.actor, { key_hash: admin.hash, label: admin.label, account_id: gw.accountId });
      assert.ok(e.at >= started && !Number.isNaN(Date.parse(e.at)));
    }
    assert.deepEqual(mine[4].details, { amount: '3', reason: 'promo' });
    assert.equal(JSON.stringify(log).includes(key.key), false, 'never a key in the log');
    const filtered = await call('GET', `${api}/audit?action=credits.adjust&target=${acct.id}`, admin.key);
    assert.deepEqual(
      filtered.json.data.map((e: any) => e.details),
      [{ amount: '-1', reason: 'refund' }],
    );
  });

  test('health lists every provider endpoint with its circuit and figures; a generation by id is whole', async () => {
    const health = await call('GET', `${api}/health`, admin.key);
    const sim = health.json.data.providers.find((p: any) => p.id === 'sim');
    assert.ok(sim.endpoints.length > 0);
    assert.equal(typeof sim.endpoints[0].circuit, 'string');
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${gw.key}` });
    await gw.flush();
    const id = res.headers.get('x-generation-id')!;
    const one = await call('GET', `${api}/generations/${id}`, admin.key);
    assert.equal(one.status, 200);
    assert.equal(one.json.data.id, id);
    assert.equal(one.json.data.account_id, gw.accountId);
    assert.equal(
      one.json.data.total_cost_usd,
      (await gw.services.stores.generations.getRecord(id))!.costNanos === 0n ? '0' : one.json.data.total_cost_usd,
    );
    assert.ok(Array.isArray(one.json.data.attempts));
    assert.equal((await call('GET', `${api}/generations/gen-nope`, admin.key)).status, 404);
  });
});
