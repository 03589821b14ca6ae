import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call } from '../support/admin-client.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The Members page in Chromium: invite a member, change a role, remove a member choosing what
// becomes of their keys (given to another member here), each seen through the API after.

const skip = chromiumUnavailable();

describe('dashboard: members', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway();
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('invite, change a role, remove with the keys reassigned', async () => {
    // A member who holds a key, to be removed with it given to the invitee.
    const leaving = await call('POST', `${gw.origin}/api/v1/members`, mgmt, { email: 'leo@example.com', role: 'member' });
    const leoSession = (await gw.services.sessions.createForMember(leaving.json.data.id, 3_600_000)).token;
    const leoKey = await call('POST', `${gw.origin}/api/v1/keys`, leoSession, { name: 'leo key' });
    assert.equal(leoKey.status, 201);

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.getByText('leo@example.com').waitFor();

    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill('ivy@example.com');
    await invite.getByLabel('Name (optional)').fill('Ivy');
    await invite.getByLabel('Role').selectOption('viewer');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('ivy@example.com').waitFor();
    await page.getByLabel('Role of ivy@example.com').selectOption('admin');
    await screenshots(page, 'dashboard-members');

    await page.getByRole('button', { name: 'Remove leo@example.com' }).click();
    const dialog = page.getByRole('form', { name: 'Remove leo@example.com' });
    await dialog.getByRole('radio', { name: /give them to/ }).check();
    await dialog.getByLabel('Give the keys to').selectOption({ label: 'ivy@example.com' });
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await page.getByText('leo@example.com').waitFor({ state: 'detached' });
    problems.assertNone('members page');

    const members = (await call('GET', `${gw.origin}/api/v1/members`, mgmt)).json.data as Array<{ id: string; email: string; role: string }>;
    assert.deepEqual(members.map((m) => [m.email, m.role]), [['ivy@example.com', 'admin']]);
    const key = (await call('GET', `${gw.origin}/api/v1/keys/${leoKey.json.data.hash}`, mgmt)).json.data;
    assert.equal(key.member_id, members[0]!.id);
    assert.equal(key.disabled, false);
    await context.close();
  });
});
