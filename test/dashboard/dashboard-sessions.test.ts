import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Dashboard sign-in over real HTTP: a management or admin key is exchanged for an httpOnly,
// SameSite=Strict session cookie; the cookie plus the CSRF token act as the key on /api/v1;
// sign-out and disabling the key end the session; sign-in attempts are rate-limited.

interface SignIn {
  status: number;
  cookie: string | null;
  setCookie: string | null;
  json: any;
}

async function signIn(gw: TestGateway, key: string, headers: Record<string, string> = {}): Promise<SignIn> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, setCookie, cookie: setCookie === null ? null : setCookie.split(';')[0]!, json: await res.json() };
}

function call(
  gw: TestGateway,
  method: string,
  path: string,
  cookie: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Response> {
  return fetch(`${gw.origin}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('dashboard sessions', () => {
  let gw: TestGateway;
  let management: string;
  let managementHash: string;
  let admin: string;
  before(async () => {
    gw = await startTestGateway();
    const m = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true });
    management = m.key;
    managementHash = m.record.hash;
    admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
  });
  after(() => gw.close());

  test('a management key signs in: an httpOnly, SameSite=Strict, expiring cookie, not Secure over http', async () => {
    const s = await signIn(gw, management);
    assert.equal(s.status, 200);
    assert.equal(s.json.kind, 'management');
    assert.equal(s.json.account.id, gw.accountId);
    assert.match(s.cookie!, /^sy_session=sy-session-[A-Za-z0-9_-]{43}$/);
    assert.match(s.setCookie!, /HttpOnly/);
    assert.match(s.setCookie!, /SameSite=Strict/);
    assert.match(s.setCookie!, /Path=\//);
    assert.match(s.setCookie!, /Expires=/);
    assert.doesNotMatch(s.setCookie!, /Secure/);
    assert.ok(!JSON.stringify(s.json).includes(management), 'the key is not echoed back');
  });

  test('the cookie reads the account API; a change needs the CSRF token and a same-origin Origin', async () => {
    const s = await signIn(gw, management);
    const keys = await call(gw, 'GET', '/api/v1/keys', s.cookie!);
    assert.equal(keys.status, 200);
    const noCsrf = await call(gw, 'POST', '/api/v1/keys', s.cookie!, {}, { name: 'x' });
    assert.equal(noCsrf.status, 403);
    const csrf = { 'x-csrf-token': s.json.csrf_token };
    const crossSite = await call(gw, 'POST', '/api/v1/keys', s.cookie!, { ...csrf, origin: 'https://evil.example' }, { name: 'x' });
    assert.equal(crossSite.status, 403);
    const ok = await call(gw, 'POST', '/api/v1/keys', s.cookie!, { ...csrf, origin: gw.origin }, { name: 'from the dashboard' });
    assert.equal(ok.status, 201);
    const session = (await (await call(gw, 'GET', '/api/v1/dashboard/session', s.cookie!)).json()) as { csrf_token: string };
    assert.equal(session.csrf_token, s.json.csrf_token);
  });

  test('the cookie never authenticates a model call on /v1', async () => {
    const s = await signIn(gw, management);
    const res = await call(
      gw,
      'POST',
      '/v1/chat/completions',
      s.cookie!,
      {},
      { model: 'sim/echo', messages: [{ role: 'user', content: 'hi' }] },
    );
    assert.equal(res.status, 401);
  });

  test('an admin key signs in as the operator and reaches the admin API', async () => {
    const s = await signIn(gw, admin);
    assert.equal(s.json.kind, 'admin');
    assert.equal((await call(gw, 'GET', '/api/v1/admin/accounts', s.cookie!)).status, 200);
  });

  test('an API key (for calling models) or a malformed key cannot sign in', async () => {
    assert.equal((await signIn(gw, gw.key)).status, 403);
    assert.equal((await signIn(gw, 'not-a-key')).status, 401);
  });

  test('sign-out ends the session', async () => {
    const s = await signIn(gw, management);
    const out = await call(gw, 'DELETE', '/api/v1/dashboard/session', s.cookie!, { 'x-csrf-token': s.json.csrf_token });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie')!, /Expires=Thu, 01 Jan 1970/);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', s.cookie!)).status, 401);
    const after = (await (await call(gw, 'GET', '/api/v1/dashboard/session', s.cookie!)).json()) as { signed_in: boolean };
    assert.equal(after.signed_in, false);
  });

  test('disabling the key it was made from ends the session, for good', async () => {
    const other = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt 2', management: true });
    const s = await signIn(gw, other.key);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', s.cookie!)).status, 200);
    const adminSession = await signIn(gw, admin);
    const off = await call(
      gw,
      'PATCH',
      `/api/v1/admin/keys/${other.record.hash}`,
      adminSession.cookie!,
      { 'x-csrf-token': adminSession.json.csrf_token },
      { disabled: true },
    );
    assert.equal(off.status, 200);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', s.cookie!)).status, 401);
    assert.notEqual(managementHash, other.record.hash);
    // Enabling the key again does not revive the session: a new sign-in is needed.
    const on = await call(
      gw,
      'PATCH',
      `/api/v1/admin/keys/${other.record.hash}`,
      adminSession.cookie!,
      { 'x-csrf-token': adminSession.json.csrf_token },
      { disabled: false },
    );
    assert.equal(on.status, 200);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', s.cookie!)).status, 401);
    const again = await signIn(gw, other.key);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', again.cookie!)).status, 200);
  });

  test('deleting the key ends its sessions', async () => {
    const other = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt 3', management: true });
    const s = await signIn(gw, other.key);
    await gw.services.stores.accounts.deleteKey(other.record.hash);
    gw.services.auth.invalidate(other.record.hash);
    assert.equal((await call(gw, 'GET', '/api/v1/keys', s.cookie!)).status, 401);
    assert.equal(await gw.services.sessions.keyHashOf(s.cookie!.slice('sy_session='.length)), undefined);
  });
});

describe('the session cookie behind a TLS-terminating proxy', () => {
  test('is Secure when a trusted proxy says https; an untrusted X-Forwarded-Proto is ignored', async () => {
    const trusted = await startTestGateway({
      tweak: (c) => {
        c.server.trustProxy = '127.0.0.1';
      },
    });
    const untrusted = await startTestGateway();
    try {
      const key = async (gw: TestGateway) =>
        (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
      const viaProxy = await signIn(trusted, await key(trusted), { 'x-forwarded-proto': 'https' });
      assert.match(viaProxy.setCookie!, /; Secure/);
      const spoofed = await signIn(untrusted, await key(untrusted), { 'x-forwarded-proto': 'https' });
      assert.doesNotMatch(spoofed.setCookie!, /Secure/);
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });
});

describe('dashboard sign-in rate limit', () => {
  test('the eleventh attempt in a minute from one address is refused with 429 and Retry-After', async () => {
    const gw = await startTestGateway();
    try {
      for (let i = 0; i < 10; i++) assert.equal((await signIn(gw, 'sk-sy-v1-' + 'A'.repeat(43))).status, 401);
      const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'x' }),
      });
      assert.equal(res.status, 429);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    } finally {
      await gw.close();
    }
  });
});

describe('dashboard pages', () => {
  test('/ redirects to /dashboard/; client routes answer the app with a strict CSP; assets are served', async () => {
    const gw = await startTestGateway();
    try {
      const root = await fetch(`${gw.origin}/`, { redirect: 'manual' });
      assert.equal(root.status, 302);
      assert.equal(root.headers.get('location'), '/dashboard/');
      const page = await fetch(`${gw.origin}/dashboard/activity`);
      assert.equal(page.status, 200);
      const csp = page.headers.get('content-security-policy')!;
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      const html = await page.text();
      const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      assert.ok(asset !== undefined, html);
      const js = await fetch(`${gw.origin}${asset}`);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type')!, /javascript/);
    } finally {
      await gw.close();
    }
  });

  test('under server.base_path every route, asset and cookie path carries the prefix', async () => {
    const gw = await startTestGateway({
      tweak: (c) => {
        c.server.basePath = '/gw';
      },
    });
    try {
      const root = await fetch(`${gw.origin}/gw/`, { redirect: 'manual' });
      assert.equal(root.headers.get('location'), '/gw/dashboard/');
      const html = await (await fetch(`${gw.origin}/gw/dashboard/`)).text();
      assert.match(html, /src="\/gw\/dashboard\/assets\//);
      assert.equal((await fetch(`${gw.origin}/dashboard/`)).status, 404);
      const m = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true });
      const res = await fetch(`${gw.origin}/gw/api/v1/dashboard/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: m.key }),
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('set-cookie')!, /Path=\/gw\//);
    } finally {
      await gw.close();
    }
  });
});
