import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Behind a TLS-terminating proxy (trusted X-Forwarded-Proto: https) the session cookie is
// `__Host-` prefixed (Secure, Path=/, no Domain), and only that name is taken over https;
// with `server.public_origin` set, a state-changing dashboard request must name exactly
// that origin, whatever Host the request carries.

const PUBLIC = 'https://gw.example.com';
const HTTPS = { 'x-forwarded-proto': 'https' };

async function signIn(
  gw: TestGateway,
  key: string,
  headers: Record<string, string>,
): Promise<{ status: number; setCookie: string | null; json: any }> {
  const res = await fetch(`${gw.origin}/gw/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  return { status: res.status, setCookie: res.headers.get('set-cookie'), json: await res.json() };
}

describe('the session cookie over https, and the configured public origin', () => {
  let gw: TestGateway;
  let management: string;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}server:\n  trust_proxy: 127.0.0.1\n  public_origin: ${PUBLIC}/\n  base_path: /gw\n` });
    management = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
  });
  after(() => gw.close());

  test('over https the cookie is __Host-sy_session: Secure, Path=/, no Domain', async () => {
    const s = await signIn(gw, management, { ...HTTPS, origin: PUBLIC });
    assert.equal(s.status, 200, JSON.stringify(s.json));
    assert.match(s.setCookie!, /^__Host-sy_session=sy-session-[A-Za-z0-9_-]{43};/);
    assert.match(s.setCookie!, /; Secure/);
    assert.match(s.setCookie!, /; Path=\/;/);
    assert.doesNotMatch(s.setCookie!, /Domain=/i);
  });

  test('over https only the __Host- cookie authenticates; the same token under the plain name does not', async () => {
    const s = await signIn(gw, management, { ...HTTPS, origin: PUBLIC });
    const token = s.setCookie!.split(';')[0]!.split('=')[1]!;
    const good = await fetch(`${gw.origin}/gw/api/v1/keys`, { headers: { ...HTTPS, cookie: `__Host-sy_session=${token}` } });
    assert.equal(good.status, 200);
    const plain = await fetch(`${gw.origin}/gw/api/v1/keys`, { headers: { ...HTTPS, cookie: `sy_session=${token}` } });
    assert.equal(plain.status, 401);
  });

  test("a sign-in whose Origin is the request's own host but not the public origin is refused", async () => {
    const s = await signIn(gw, management, { ...HTTPS, origin: gw.origin });
    assert.equal(s.status, 403);
    assert.match(s.json.error.message, /Origin/);
    const other = await signIn(gw, management, { ...HTTPS, origin: 'https://gw.example.com.evil.test' });
    assert.equal(other.status, 403);
  });

  test('a change through the cookie names the public origin or is refused', async () => {
    const s = await signIn(gw, management, { ...HTTPS, origin: PUBLIC });
    const cookie = s.setCookie!.split(';')[0]!;
    const headers = { ...HTTPS, cookie, 'content-type': 'application/json', 'x-csrf-token': s.json.csrf_token };
    const refused = await fetch(`${gw.origin}/gw/api/v1/keys`, {
      method: 'POST',
      headers: { ...headers, origin: gw.origin },
      body: '{"name":"x"}',
    });
    assert.equal(refused.status, 403);
    const made = await fetch(`${gw.origin}/gw/api/v1/keys`, {
      method: 'POST',
      headers: { ...headers, origin: PUBLIC },
      body: '{"name":"x"}',
    });
    assert.equal(made.status, 201);
  });

  test('a public_origin with a path is refused at start, naming the field', async () => {
    await assert.rejects(
      startTestGateway({ yaml: `${SIM_ONLY}server:\n  public_origin: https://gw.example.com/dash\n` }),
      /server\.public_origin/,
    );
  });
});
