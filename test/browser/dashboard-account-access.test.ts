import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call, createAdminKey } from '../support/admin-client.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, launchChromium, screenshots } from './browser-support.ts';
import { signedIn } from './signed-in.ts';

// The operator's Accounts page edits what an account may reach and spend (docs/governance.md
// #allowlists, docs/budgets.md), in Chromium: the allowed models then hold for every key of the
// account (a model outside the list is model_not_found and not in /v1/models), a budget of 0
// refuses the next request (402, reason budget); cleared, both are gone. The owner's Settings
// shows them.

const skip = chromiumUnavailable();

describe("dashboard: an account's allowlist and budget", { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    gw = await startTestGateway();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const ask = (model: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );

  test("Accounts: edit the account's allowed models and budget; the gateway holds every key of it to them", async () => {
    const admin = await createAdminKey(gw, 'operator');
    const { page, problems, close } = await signedIn(browser, gw.origin, admin.key);
    await page.locator('table[aria-label="Accounts"] tbody tr', { hasText: 'test account' }).click();
    const form = page.getByRole('region', { name: 'Account test account' }).getByRole('form', { name: 'Access and budget of the account' });
    await form.getByLabel('Allowed models (ids or globs; blank: all)').fill('switchyard/sim-f*, switchyard/sim-embed');
    await form.getByLabel('Budget (USD; blank: none)').fill('40');
    await form.getByLabel('Budget resets').selectOption('monthly');
    await form.getByRole('button', { name: 'Save access and budget' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await screenshots(page, 'admin-account-access');
    problems.assertNone('saving the access and budget');

    const account = (await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin.key)).json.data;
    assert.deepEqual(account.allowed_models, ['switchyard/sim-f*', 'switchyard/sim-embed']);
    assert.equal(account.allowed_providers, null);
    assert.deepEqual({ amount_usd: account.budget.amount_usd, reset: account.budget.reset }, { amount_usd: '40', reset: 'monthly' });
    // The account's key (no list of its own) is held to the account's list at once.
    assert.equal((await ask('switchyard/sim-fast')).status, 200);
    const outside = await ask('switchyard/sim-pro');
    assert.equal(outside.status, 400);
    assert.equal(outside.json.error.code, 'model_not_found');
    const listed = (await call('GET', `${gw.baseUrl}/models`, gw.key)).json.data.map((m: { id: string }) => m.id) as string[];
    assert.ok(
      listed.length > 0 && listed.every((id) => id.startsWith('switchyard/sim-f') || id === 'switchyard/sim-embed'),
      listed.join(', '),
    );

    // A budget of 0: the next request does not fit.
    await form.getByLabel('Budget (USD; blank: none)').fill('0');
    const zeroed = page.waitForResponse((r) => r.url().endsWith(`/admin/accounts/${gw.accountId}`) && r.request().method() === 'PATCH');
    await form.getByRole('button', { name: 'Save access and budget' }).click();
    assert.equal((await zeroed).status(), 200);
    const refused = await ask('switchyard/sim-fast');
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.json.error.metadata?.reason, 'budget', refused.text);

    // The owner sees them on Settings (read only: the operator's).
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'owner', management: true });
    const owner = await signedIn(browser, gw.origin, mgmt.key);
    await owner.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await owner.page.getByTestId('account-allowed-models').filter({ hasText: 'switchyard/sim-f*, switchyard/sim-embed' }).waitFor();
    await owner.page.getByTestId('account-budget').filter({ hasText: '$0.00 per month' }).waitFor();
    owner.problems.assertNone("the owner's settings");
    await owner.close();

    // Cleared: every model again, no budget.
    await form.getByLabel('Allowed models (ids or globs; blank: all)').fill('');
    await form.getByLabel('Budget (USD; blank: none)').fill('');
    const cleared = page.waitForResponse((r) => r.url().endsWith(`/admin/accounts/${gw.accountId}`) && r.request().method() === 'PATCH');
    await form.getByRole('button', { name: 'Save access and budget' }).click();
    assert.equal((await cleared).status(), 200);
    const after = (await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin.key)).json.data;
    assert.equal(after.allowed_models, null);
    assert.equal(after.budget, null);
    assert.equal((await ask('switchyard/sim-pro')).status, 200);
    problems.assertNone('clearing the access and budget');
    await close();
  });
});
