import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startOidcProvider, type OidcTestProvider } from '../support/oidc-test-provider.ts';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// Single sign-on in a real Chromium: the sign-in page's "Sign in with <name>", the
// provider's own login and consent pages (oidc-provider), and the dashboard signed in as the
// member created on the way. The provider is on `localhost` and the gateway on 127.0.0.1:
// two sites, so the callback is a cross-site navigation, as with a real provider, and the
// SameSite=Strict session cookie must still reach the dashboard.

const skip = chromiumUnavailable();
const CALLBACK = '/api/v1/sessions/oidc/callback';
let gw: TestGateway;
let op: OidcTestProvider;
let browser: Browser;
let dir: string;

const yaml = (issuer: string, secret: string, redirect: string, account: string) => `${SIM_ONLY}oidc:
  issuer: ${issuer}
  name: Test IdP
  client_id: switchyard
  client_secret: file:${secret}
  redirect_uri: ${redirect}
  scopes: [openid, email, profile, groups]
  allowed_email_domains: [example.com]
  accounts:
    - { claim: groups, value: switchyard-admins, account: ${account}, role: admin }
`;

before(async () => {
  if (skip !== undefined) return;
  op = await startOidcProvider({ ann: { email: 'ann@example.com', name: 'Ann Admin', groups: ['switchyard-admins'] } }, 'localhost');
  dir = mkdtempSync(join(tmpdir(), 'sy-sso-'));
  writeFileSync(join(dir, 'secret'), 'browser-secret');
  gw = await startTestGateway({ yaml: yaml(op.issuer, join(dir, 'secret'), 'http://127.0.0.1:1/cb', 'acct_placeholder') });
  writeFileSync(join(gw.dir, 'switchyard.yaml'), yaml(op.issuer, join(dir, 'secret'), `${gw.origin}${CALLBACK}`, gw.accountId));
  assert.ok(gw.services.inForce.reloadAgain()?.ok);
  await op.register({ clientId: 'switchyard', clientSecret: 'browser-secret', redirectUri: `${gw.origin}${CALLBACK}` });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await gw?.close();
  await op?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test(
  '"Sign in with Test IdP": the provider\'s login and consent pages, then the dashboard signed in as the new member',
  { skip },
  async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${gw.origin}/dashboard/`);
    // The dashboard's page requests, with the cookies the browser sent (the session's must be among them after the callback).
    const dashboardRequests: Array<Promise<string>> = [];
    page.on('request', (req) => {
      if (req.url() === `${gw.origin}/dashboard/` && req.isNavigationRequest())
        dashboardRequests.push(req.allHeaders().then((h) => h.cookie ?? ''));
    });
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    await screenshots(page, 'sign-in-sso');
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    // The provider's pages (another site): its login form, then its consent.
    await page.waitForURL((url) => url.hostname === 'localhost');
    await page.locator('input[name="login"]').fill('ann');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    // Back on the gateway, signed in: the dashboard's pages, as the member with the mapped role.
    await page.waitForURL(`${gw.origin}/dashboard/`);
    const problems = watchPage(page);
    await page.getByTestId('who').waitFor();
    assert.equal(await page.getByTestId('who').textContent(), 'ann@example.com · test account (admin)');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('cell', { name: 'Ann Admin ann@example.com' }).waitFor();
    problems.assertNone('the dashboard after single sign-on');
    // SameSite=Strict: the callback's page moved on to the dashboard by a same-site navigation, so its request carried the session.
    const sent = await Promise.all(dashboardRequests);
    assert.equal(sent.length, 1, 'the dashboard after the callback');
    assert.match(sent[0]!, /sy_session=sy-session-/);
    const cookies = await context.cookies(gw.origin);
    const session = cookies.find((c) => c.name === 'sy_session');
    assert.ok(session, 'the session cookie');
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.httpOnly, true);
    await context.close();
  },
);
