import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../support/admin-client.ts';
import { startJoseProvider, type JoseTestProvider, type TokenKind } from '../support/jose-test-provider.ts';
import { signInAtProvider, startOidcProvider, type OidcTestProvider } from '../support/oidc-test-provider.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Single sign-on to the dashboard through real OpenID Connect providers on loopback: panva's
// oidc-provider (its login and consent pages driven over HTTP) for the whole flow — a member
// created just in time with the mapped account and role, a session that works on the
// management API, the sign-in audited, a replayed state refused, a disallowed domain
// refused, a removed member not let back, the client secret read again on reload — and a
// small jose provider whose ID tokens the test chooses: forged, for another audience,
// expired, with another nonce, from another issuer.

const START = '/api/v1/sessions/oidc/start';
const CALLBACK = '/api/v1/sessions/oidc/callback';

/** The gateway's start: the provider's authorization URL, and the state cookie it set. */
async function begin(gw: TestGateway): Promise<{ location: string; cookie: string }> {
  const res = await fetch(`${gw.origin}${START}`, { redirect: 'manual' });
  assert.equal(res.status, 303, await res.text());
  const set = res.headers.getSetCookie().find((c) => c.startsWith('sy_oidc_state='));
  assert.ok(set, 'the state cookie');
  assert.match(set, /HttpOnly/i);
  assert.match(set, /SameSite=Lax/i);
  assert.match(set, new RegExp(`Path=${CALLBACK}`));
  return { location: res.headers.get('location')!, cookie: set.split(';')[0]! };
}

/** The provider's redirect back, as the browser makes it (with the state cookie). */
async function finish(
  url: string,
  cookie: string | null,
  accept = 'application/json',
): Promise<{ status: number; text: string; session: string | null }> {
  const res = await fetch(url, { redirect: 'manual', headers: { accept, ...(cookie === null ? {} : { cookie }) } });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('sy_session=') && !c.startsWith('sy_session=;'));
  if (session !== undefined) {
    assert.match(session, /HttpOnly/i);
    assert.match(session, /SameSite=Strict/i);
  }
  return { status: res.status, text: await res.text(), session: session?.split(';')[0] ?? null };
}

function oidcYaml(issuer: string, secretFile: string, redirectUri: string, accountId: string, extra = ''): string {
  return `${SIM_ONLY}oidc:
  issuer: ${issuer}
  name: Test IdP
  client_id: switchyard
  client_secret: file:${secretFile}
  redirect_uri: ${redirectUri}
  scopes: [openid, email, profile, groups]
  allowed_email_domains: [example.com]
  accounts:
    - { claim: groups, value: switchyard-admins, account: ${accountId}, role: admin }
    - { account: ${accountId} }
  default_role: viewer
${extra}`;
}

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

// The sign-ins in progress are shared state (a fleet's callback may reach another instance): on SQLite, and on Postgres + Redis.
const ENGINES: Array<{ name: string; skip: string | false; env(): Promise<Record<string, string>> }> = [
  { name: 'SQLite', skip: false, env: async () => ({}) },
  {
    name: 'Postgres + Redis',
    skip: postgresUnavailable() ?? redisUnavailable() ?? false,
    env: async () => {
      redis = await startRedis();
      return { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    },
  },
];

for (const engine of ENGINES)
  describe(`single sign-on through oidc-provider (${engine.name})`, { skip: engine.skip }, () => {
    let op: OidcTestProvider;
    let gw: TestGateway;
    let dir: string;
    let secretFile: string;
    let admin: string;
    const users = {
      ann: { email: 'Ann@Example.com', name: 'Ann Admin', groups: ['switchyard-admins'] },
      vic: { email: 'vic@example.com', name: 'Vic Viewer' },
      eve: { email: 'eve@elsewhere.org', name: 'Eve' },
      kim: { email: 'kim@example.com', name: 'Kim' },
    };

    const writeConfig = (secret: string, extra = '') => {
      writeFileSync(secretFile, `${secret}\n`);
      writeFileSync(join(gw.dir, 'switchyard.yaml'), oidcYaml(op.issuer, secretFile, `${gw.origin}${CALLBACK}`, gw.accountId, extra));
      const reloaded = gw.services.inForce.reloadAgain();
      assert.ok(reloaded?.ok, JSON.stringify(reloaded));
    };

    before(async () => {
      op = await startOidcProvider(users);
      dir = mkdtempSync(join(tmpdir(), 'sy-oidc-'));
      secretFile = join(dir, 'client-secret');
      writeFileSync(secretFile, 'placeholder\n');
      // The gateway's port and account are known once it listens: the config names them after a reload.
      gw = await startTestGateway({
        yaml: oidcYaml(op.issuer, secretFile, 'http://127.0.0.1:1/callback', 'acct_placeholder'),
        env: await engine.env(),
      });
      writeConfig('first-secret');
      await op.register({ clientId: 'switchyard', clientSecret: 'first-secret', redirectUri: `${gw.origin}${CALLBACK}` });
      admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
    });
    after(async () => {
      await gw?.close();
      await op?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const signIn = async (login: string) => {
      const started = await begin(gw);
      const back = await signInAtProvider(started.location, login, `${gw.origin}${CALLBACK}`);
      return { back, cookie: started.cookie, answer: await finish(back, started.cookie) };
    };

    test("the sign-in page is told single sign-on is on, with the button's name and where it starts", async () => {
      const res = await call('GET', `${gw.origin}/api/v1/dashboard/session`, null);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { signed_in: false, email_sign_in: false, sso: { name: 'Test IdP', url: START } });
    });

    test('a first sign-in creates the member with the mapped account and role; the session works on the management API; it is audited', async () => {
      const { answer } = await signIn('ann');
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.text, /http-equiv="refresh" content="0;url=\/dashboard\/"/);
      assert.ok(answer.session);
      const session = await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie: answer.session } }).then(
        (r) => r.json() as Promise<any>,
      );
      assert.equal(session.signed_in, true);
      assert.equal(session.kind, 'member');
      assert.equal(session.role, 'admin');
      assert.equal(session.account.id, gw.accountId);
      assert.deepEqual({ email: session.member.email, name: session.member.name }, { email: 'Ann@Example.com', name: 'Ann Admin' });
      // A management route, as the member: an admin lists the account's members.
      const members = await fetch(`${gw.origin}/api/v1/members`, { headers: { cookie: answer.session } });
      assert.equal(members.status, 200);
      const list = ((await members.json()) as { data: unknown }).data as Array<{ email: string; role: string }>;
      assert.deepEqual(
        list.map((m) => [m.email, m.role]),
        [['Ann@Example.com', 'admin']],
      );
      // Another sign-in without the group lands with the default role.
      const vic = await signIn('vic');
      assert.equal(vic.answer.status, 200, vic.answer.text);
      const vicSession = await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie: vic.answer.session! } }).then(
        (r) => r.json() as Promise<any>,
      );
      assert.equal(vicSession.role, 'viewer');
      // Audited: the creation, and each sign-in with who and from where.
      const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?action=session.sso_sign_in`, admin);
      assert.equal(audit.status, 200, JSON.stringify(audit.json));
      const entries = audit.json.data as Array<{ details: Record<string, unknown>; actor: unknown }>;
      assert.equal(entries.length, 2);
      const ann = entries.find((e) => e.details.email === 'Ann@Example.com')!;
      assert.equal(ann.details.ip, '127.0.0.1');
      assert.equal(ann.details.issuer, op.issuer);
      assert.equal(ann.details.subject, 'ann');
      const added = await call('GET', `${gw.origin}/api/v1/admin/audit?action=member.add`, admin);
      assert.equal(added.json.data.length, 2);
      // The running configuration shows the provider, never the client secret.
      const config = await call('GET', `${gw.origin}/api/v1/admin/config`, admin);
      assert.equal(config.status, 200);
      assert.ok(JSON.stringify(config.json).includes(op.issuer));
      assert.ok(!JSON.stringify(config.json).includes('first-secret'), 'the client secret is masked');
    });

    test("a replayed state is refused, and so is a callback without the browser's state cookie", async () => {
      const first = await signIn('vic');
      assert.equal(first.answer.status, 200, first.answer.text);
      const replay = await finish(first.back, first.cookie);
      assert.equal(replay.status, 401);
      assert.match(JSON.parse(replay.text).error.message, /unknown, already used or expired/);
      assert.equal(replay.session, null);
      // A callback URL carried to another browser (no cookie, or another sign-in's) is refused before anything.
      const started = await begin(gw);
      const back = await signInAtProvider(started.location, 'vic', `${gw.origin}${CALLBACK}`);
      const stranger = await finish(back, null);
      assert.equal(stranger.status, 401);
      assert.match(JSON.parse(stranger.text).error.message, /not started in this browser/);
      // A browser gets a page that says why, not JSON.
      const page = await finish(back, 'sy_oidc_state=wrong', 'text/html');
      assert.equal(page.status, 401);
      assert.match(page.text, /Sign-in refused/);
    });

    test('an email outside the allowed domains is refused and no member is created', async () => {
      const { answer } = await signIn('eve');
      assert.equal(answer.status, 403);
      assert.match(JSON.parse(answer.text).error.message, /elsewhere\.org may not sign in/);
      assert.equal(await gw.services.stores.members.byEmail(gw.accountId, 'eve@elsewhere.org'), undefined);
    });

    test('a removed member cannot sign in again through single sign-on until an admin adds them back', async () => {
      const member = await gw.services.stores.members.byEmail(gw.accountId, 'vic@example.com');
      assert.ok(member);
      const removed = await call('DELETE', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/members/${member.id}?keys=disable`, admin);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      const again = await signIn('vic');
      assert.equal(again.answer.status, 403);
      assert.match(JSON.parse(again.answer.text).error.message, /was removed from this account/);
      assert.equal(await gw.services.stores.members.byEmail(gw.accountId, 'vic@example.com'), undefined);
      const added = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/members`, admin, {
        email: 'vic@example.com',
        role: 'member',
      });
      assert.equal(added.status, 201, JSON.stringify(added.json));
      assert.equal((await signIn('vic')).answer.status, 200);
    });

    test('with jit: false only members an admin added sign in (a reload turns it off)', async () => {
      writeConfig('first-secret', '  jit: false\n');
      try {
        const refused = await signIn('kim');
        assert.equal(refused.answer.status, 403);
        assert.match(JSON.parse(refused.answer.text).error.message, /kim@example\.com is not a member of this account/);
        assert.equal(await gw.services.stores.members.byEmail(gw.accountId, 'kim@example.com'), undefined);
        const added = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/members`, admin, {
          email: 'kim@example.com',
          role: 'member',
        });
        assert.equal(added.status, 201);
        const kim = await signIn('kim');
        assert.equal(kim.answer.status, 200, kim.answer.text);
        const session = await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie: kim.answer.session! } }).then(
          (r) => r.json() as Promise<any>,
        );
        assert.equal(session.role, 'member', "the admin's role, not the rule's");
      } finally {
        writeConfig('first-secret');
      }
    });

    test('the client secret is read again on reload (file: reference)', async () => {
      await op.register({ clientId: 'switchyard', clientSecret: 'second-secret', redirectUri: `${gw.origin}${CALLBACK}` });
      // The provider now knows only the new secret: the gateway's old one is refused at the token endpoint (the operator's to fix: 502).
      const stale = await signIn('ann');
      assert.equal(stale.answer.status, 502);
      assert.equal(JSON.parse(stale.answer.text).error.code, 'sso_unavailable');
      assert.match(JSON.parse(stale.answer.text).error.message, /refused the gateway's client credentials: invalid_client/);
      writeConfig('second-secret');
      const fresh = await signIn('ann');
      assert.equal(fresh.answer.status, 200, fresh.answer.text);
    });
  });

describe('single sign-on refuses ID tokens that do not verify (a provider whose tokens the test chooses)', () => {
  let op: JoseTestProvider;
  let gw: TestGateway;
  let dir: string;
  before(async () => {
    op = await startJoseProvider({ clientId: 'switchyard', clientSecret: 's3cret' });
    dir = mkdtempSync(join(tmpdir(), 'sy-oidc-'));
    writeFileSync(join(dir, 'secret'), 's3cret');
    gw = await startTestGateway({ yaml: oidcYaml(op.issuer, join(dir, 'secret'), 'http://127.0.0.1:1/callback', 'acct_placeholder') });
    writeFileSync(join(gw.dir, 'switchyard.yaml'), oidcYaml(op.issuer, join(dir, 'secret'), `${gw.origin}${CALLBACK}`, gw.accountId));
    assert.ok(gw.services.inForce.reloadAgain()?.ok);
  });
  after(async () => {
    await gw?.close();
    await op?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const claims = { sub: 'sub-zoe', email: 'zoe@example.com', email_verified: true, name: 'Zoe' };
  const attempt = async (kind: TokenKind) => {
    op.next = { kind, claims };
    const started = await begin(gw);
    const back = await fetch(started.location, { redirect: 'manual' });
    assert.equal(back.status, 303);
    return finish(back.headers.get('location')!, started.cookie);
  };

  const cases: Array<[TokenKind, string, RegExp]> = [
    ['forged', 'signed by another key', /signature verification failed/],
    ['wrong-audience', 'for another audience', /"aud" \(audience\)/],
    ['expired', 'that has expired', /"exp" \(expiration time\)/],
    ['wrong-nonce', "with another sign-in's nonce", /"nonce"/],
    ['wrong-issuer', 'from another issuer', /"iss" \(issuer\)/],
  ];
  for (const [kind, what, why] of cases) {
    test(`an ID token ${what} is refused, and no one is signed in`, async () => {
      const answer = await attempt(kind);
      assert.equal(answer.status, 401, answer.text);
      const message = JSON.parse(answer.text).error.message as string;
      assert.match(message, /did not verify:/);
      assert.match(message, why);
      assert.equal(answer.session, null);
      assert.equal(await gw.services.stores.members.byEmail(gw.accountId, 'zoe@example.com'), undefined);
    });
  }

  test("the same provider's good token signs in (the refusals above are the tokens', not the setup's)", async () => {
    const answer = await attempt('good');
    assert.equal(answer.status, 200, answer.text);
    assert.ok(answer.session);
  });
});

describe('without oidc:', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw?.close());

  test('the routes answer 404 and the sign-in page offers no single sign-on', async () => {
    assert.equal((await fetch(`${gw.origin}${START}`, { redirect: 'manual' })).status, 404);
    assert.equal((await fetch(`${gw.origin}${CALLBACK}?code=x&state=y`, { redirect: 'manual' })).status, 404);
    const res = await call('GET', `${gw.origin}/api/v1/dashboard/session`, null);
    assert.equal(res.json.sso, null);
  });
});
