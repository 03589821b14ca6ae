import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call } from '../support/admin-client.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';
import { openPage, signedIn } from './signed-in.ts';

// The Members page in Chromium: invite a member, change a role, remove a member choosing what
// becomes of their keys (given to another member, or disabled), each seen through the API
// after; a member's allowed models and budget edited, the models then enforced on their key.

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

    const members = (await call('GET', `${gw.origin}/api/v1/members`, mgmt)).json.data as Array<{
      id: string;
      email: string;
      role: string;
    }>;
    assert.deepEqual(
      members.map((m) => [m.email, m.role]),
      [['ivy@example.com', 'admin']],
    );
    const key = (await call('GET', `${gw.origin}/api/v1/keys/${leoKey.json.data.hash}`, mgmt)).json.data;
    assert.equal(key.member_id, members[0]!.id);
    assert.equal(key.disabled, false);
    await context.close();
  });

  test("a member's allowed models and budget; removed with their keys disabled", async () => {
    const max = await call('POST', `${gw.origin}/api/v1/members`, mgmt, { email: 'max@example.com', role: 'member' });
    assert.equal(max.status, 201);
    const maxSession = (await gw.services.sessions.createForMember(max.json.data.id, 3_600_000)).token;
    const maxKey = await call('POST', `${gw.origin}/api/v1/keys`, maxSession, { name: 'max key' });
    assert.equal(maxKey.status, 201);
    const ask = (model: string) =>
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model, messages: [{ role: 'user', content: 'hi' }] },
        { authorization: `Bearer ${maxKey.json.key}` },
      );
    assert.equal((await ask('switchyard/sim-pro')).status, 200);

    const { page, problems, close } = await signedIn(browser, gw.origin, mgmt);
    await openPage(page, 'Members');
    const row = page.locator('table[aria-label="Members"] tbody tr', { hasText: 'max@example.com' });
    await row.getByTestId('member-access').filter({ hasText: "the account's models · no budget" }).waitFor();

    await page.getByRole('button', { name: 'Edit the access of max@example.com' }).click();
    const form = page.getByRole('form', { name: 'Access of max@example.com' });
    await form.getByLabel('Allowed models (ids or globs, comma-separated)').fill('switchyard/sim-fast');
    await form.getByLabel('Budget (USD)').fill('20');
    await form.getByLabel('Budget resets').selectOption('weekly');
    await form.getByRole('button', { name: 'Save access' }).click();
    await row.getByTestId('member-access').filter({ hasText: 'switchyard/sim-fast · budget $20.00 per week' }).waitFor();
    problems.assertNone("editing a member's access");
    const saved = (await call('GET', `${gw.origin}/api/v1/members/${max.json.data.id}`, mgmt)).json.data;
    assert.deepEqual(saved.allowed_models, ['switchyard/sim-fast']);
    assert.deepEqual({ amount_usd: saved.budget.amount_usd, reset: saved.budget.reset }, { amount_usd: '20', reset: 'weekly' });
    // The member's key is held to the member's list at once.
    assert.equal((await ask('switchyard/sim-fast')).status, 200);
    assert.equal((await ask('switchyard/sim-pro')).json.error.code, 'model_not_found');

    // Removed, with the keys disabled (the page's first choice): the key answers 401.
    await page.getByRole('button', { name: 'Remove max@example.com' }).click();
    const dialog = page.getByRole('form', { name: 'Remove max@example.com' });
    assert.ok(await dialog.getByRole('radio', { name: 'disable them' }).isChecked());
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await row.waitFor({ state: 'detached' });
    problems.assertNone('removing a member, keys disabled');
    const key = (await call('GET', `${gw.origin}/api/v1/keys/${maxKey.json.data.hash}`, mgmt)).json.data;
    assert.equal(key.disabled, true);
    assert.equal((await ask('switchyard/sim-fast')).status, 401);
    await close();
  });
});
