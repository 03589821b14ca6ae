import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApiKey, hashApiKey, labelApiKey } from '../../src/auth/api-key.ts';
import { PLAYGROUND_KEY_NAME, PLAYGROUND_KEYS_PER_ACCOUNT } from '../../src/billing/playground-keys.ts';
import { call as callWithKey, createAdminKey } from '../support/admin-client.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The playground's key: made by the server for a dashboard session, marked as the
// playground's, expiring within minutes, with a small limit. Making one removes only the
// playground's own expired keys (and the oldest beyond a few), never a key the account
// made, even one named "dashboard playground".

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(gw: TestGateway, key: string): Promise<Session> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
  assert.equal(res.status, 200);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

async function mint(gw: TestGateway, s: Session): Promise<{ status: number; json: any }> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/playground-key`, {
    method: 'POST',
    headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
  });
  return { status: res.status, json: await res.json() };
}

const chat = { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] };

describe("the playground's own key", () => {
  let gw: TestGateway;
  let mgmt: string;
  let session: Session;
  before(async () => {
    gw = await startTestGateway({ credits: '20' });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dash', management: true })).key;
    session = await signIn(gw, mgmt);
  });
  after(() => gw.close());

  test("is short-lived, limited, marked as the playground's, calls models, and is audited", async () => {
    const made = await mint(gw, session);
    assert.equal(made.status, 201);
    assert.match(made.json.key, /^sk-sy-v1-/);
    assert.equal(made.json.data.name, PLAYGROUND_KEY_NAME);
    assert.equal(made.json.data.limit, '1');
    const ttl = Date.parse(made.json.data.expires_at) - Date.now();
    assert.ok(ttl > 10 * 60_000 && ttl <= 15 * 60_000, `expires in ${ttl} ms`);
    const record = (await gw.services.stores.accounts.getKey(made.json.data.hash))!;
    assert.equal(record.isPlayground, true);
    assert.equal(record.limitNanos, 1_000_000_000n);
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${made.json.key}` });
    assert.equal(res.status, 200);
    const admin = (await createAdminKey(gw)).key;
    const audit = await callWithKey('GET', `${gw.origin}/api/v1/admin/audit?target=${made.json.data.hash}`, admin);
    assert.equal(audit.json.data[0].action, 'key.create');
    assert.equal(audit.json.data[0].details.playground, true);
    assert.equal(JSON.stringify(audit.json).includes(made.json.key), false);
  });

  test("making one removes the playground's expired keys and the oldest beyond the cap, and never a key the account made", async () => {
    // The account's own key of the same name, and an expired key of its own: both stay.
    const users = await gw.services.accountService.createKey({ accountId: gw.accountId, name: PLAYGROUND_KEY_NAME });
    const past = new Date(Date.now() - 60_000).toISOString();
    const insert = async (name: string, playground: boolean) => {
      const raw = generateApiKey();
      await gw.services.stores.accounts.createKey({
        hash: hashApiKey(raw),
        accountId: gw.accountId,
        name,
        label: labelApiKey(raw),
        limitNanos: 1n,
        isManagement: false,
        isPlayground: playground,
        expiresAt: past,
        now: past,
      });
      return hashApiKey(raw);
    };
    const expiredOwn = await insert("expired, the account's", false);
    const expiredPlayground = await insert(PLAYGROUND_KEY_NAME, true);

    const first = await mint(gw, session);
    assert.equal(first.status, 201);
    assert.equal(await gw.services.stores.accounts.getKey(expiredPlayground), undefined, "the playground's expired key is gone");
    assert.notEqual(await gw.services.stores.accounts.getKey(expiredOwn), undefined, "the account's expired key stays");
    assert.notEqual(
      await gw.services.stores.accounts.getKey(users.record.hash),
      undefined,
      'the account\'s "dashboard playground" key stays',
    );
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${users.key}` })).status, 200);

    for (let i = 0; i < PLAYGROUND_KEYS_PER_ACCOUNT + 3; i++) assert.equal((await mint(gw, session)).status, 201);
    const keys = await gw.services.stores.accounts.listKeys(gw.accountId);
    assert.equal(keys.filter((k) => k.isPlayground).length, PLAYGROUND_KEYS_PER_ACCOUNT);
    assert.equal(keys.filter((k) => !k.isPlayground && k.name === PLAYGROUND_KEY_NAME).length, 1);
  });

  test('only a dashboard session of a management key gets one', async () => {
    const url = `${gw.origin}/api/v1/dashboard/playground-key`;
    assert.equal((await fetch(url, { method: 'POST' })).status, 401);
    assert.equal(
      (await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${mgmt}` } })).status,
      403,
      'a management key itself: /keys is its API',
    );
    assert.equal((await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` } })).status, 403);
    assert.equal((await fetch(url, { method: 'POST', headers: { cookie: session.cookie } })).status, 403, 'the CSRF token is required');
  });
});
