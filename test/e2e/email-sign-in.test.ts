import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { call } from '../support/admin-client.ts';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Members' emailed one-time sign-in links, through a real SMTP server on loopback
// (smtp-server): the mail arrives, its link signs in (a cookie session acting as the member,
// with their role), a replay fails, an expired link fails, an unknown email gets the same
// answer and no mail; without `smtp:` the route is a 404 and the sign-in page is told.

interface Mail {
  to: string;
  body: string;
}

async function startSmtp() {
  const mails: Mail[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body: Buffer.concat(chunks).toString('utf8') });
        for (const w of waiters.filter((x) => mails.length >= x.n)) w.resolve();
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    until: (n: number) => new Promise<void>((resolve) => (mails.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The token of the mail's link (quoted-printable soft breaks undone). */
function tokenOf(mail: Mail): string {
  const body = mail.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const m = /https:\/\/dash\.example\.com\/dashboard\/#sign-in-link=([A-Za-z0-9_-]{43})/.exec(body);
  assert.ok(m, body);
  return m[1]!;
}

describe('email sign-in with smtp: configured', () => {
  let gw: TestGateway;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let clock = Date.now();
  before(async () => {
    smtp = await startSmtp();
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}server: { public_origin: "https://dash.example.com" }\nsmtp: { host: 127.0.0.1, port: ${smtp.port}, from: "gateway@example.com", link_ttl_seconds: 600 }\n`,
      now: () => clock,
    });
    const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    const res = await call('POST', `${gw.origin}/api/v1/members`, mgmt, { email: 'Mia@Example.com', name: 'Mia', role: 'viewer' });
    assert.equal(res.status, 201);
    // With smtp:, adding a member mails them a link: the invitation.
    await smtp.until(1);
    assert.equal(smtp.mails[0]!.to.toLowerCase(), 'mia@example.com');
    tokenOf(smtp.mails[0]!);
  });
  after(async () => {
    await gw?.close();
    await smtp?.close();
  });

  const ask = (email: string) => postJson(`${gw.origin}/api/v1/sessions/email`, { email });
  const redeem = (token: string) => postJson(`${gw.origin}/api/v1/sessions/email/redeem`, { token });

  test('the mailed link signs in once, as the member with their role; a replay fails', async () => {
    const base = smtp.mails.length;
    const sent = await ask('mia@example.com');
    assert.equal(sent.status, 202);
    assert.deepEqual(sent.json, { sent: true });
    await smtp.until(base + 1);
    assert.equal(smtp.mails[base]!.to, 'mia@example.com');
    const token = tokenOf(smtp.mails[base]!);
    const signedIn = await redeem(token);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
    assert.equal(signedIn.json.kind, 'member');
    assert.equal(signedIn.json.role, 'viewer');
    assert.equal(signedIn.json.member.email, 'Mia@Example.com');
    const cookie = signedIn.headers.get('set-cookie')!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const session = cookie.split(';')[0]!;
    // The cookie acts as the member: a viewer reads usage, may not list keys.
    const usage = await fetch(`${gw.origin}/api/v1/usage`, { headers: { cookie: session } });
    assert.equal(usage.status, 200);
    const keys = await fetch(`${gw.origin}/api/v1/keys`, { headers: { cookie: session } });
    assert.equal(keys.status, 403);
    // A change without the CSRF header is refused, as for any session.
    const noCsrf = await fetch(`${gw.origin}/api/v1/dashboard/session`, { method: 'DELETE', headers: { cookie: session } });
    assert.equal(noCsrf.status, 403);
    // The link works once.
    const replay = await redeem(token);
    assert.equal(replay.status, 401);
    assert.match(replay.json.error.message, /unknown, already used or expired/);
  });

  test('an expired link fails; an unknown email gets the same answer and no mail', async () => {
    const before = smtp.mails.length;
    assert.equal((await ask('mia@example.com')).status, 202);
    await smtp.until(before + 1);
    const token = tokenOf(smtp.mails[before]!);
    clock += 601_000;
    try {
      assert.equal((await redeem(token)).status, 401);
    } finally {
      clock -= 601_000;
    }
    const stranger = await ask('nobody@example.com');
    assert.equal(stranger.status, 202);
    assert.deepEqual(stranger.json, { sent: true });
    // A mail for Mia sent after the stranger's ask arrives: the stranger's would have come first.
    assert.equal((await ask('mia@example.com')).status, 202);
    await smtp.until(before + 2);
    assert.deepEqual(
      smtp.mails.slice(before).map((m) => m.to),
      ['mia@example.com', 'mia@example.com'],
    );
    assert.equal((await redeem('x'.repeat(43))).status, 401);
  });

  test('links per email are bounded (429), whoever asks', async () => {
    let status = 0;
    for (let i = 0; i < 6 && status !== 429; i += 1) status = (await ask('zed@example.com')).status;
    assert.equal(status, 429);
  });
});

describe('email sign-in without smtp:', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw?.close());

  test('the routes answer 404 and the sign-in page is told to offer keys only', async () => {
    const res = await postJson(`${gw.origin}/api/v1/sessions/email`, { email: 'mia@example.com' });
    assert.equal(res.status, 404);
    assert.match(res.json.error.message, /not configured.*smtp/);
    const session = await call('GET', `${gw.origin}/api/v1/dashboard/session`, null);
    assert.deepEqual(session.json, { signed_in: false, email_sign_in: false, sso: null });
  });
});
