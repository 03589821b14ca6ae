import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';
import { openPage, signedIn } from './signed-in.ts';

// The Keys page shows what each key may reach and edits it (docs/governance.md): the
// allowlist the gateway then enforces, in Chromium; the operator's All keys page too.

const skip = chromiumUnavailable();

describe("dashboard: a key's allowlist and max in flight", { skip }, () => {
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

  test("Keys: edit a key's allowed models and max in flight; the gateway refuses the other models at once", async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'keys page', management: true });
    const scoped = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'scoped key' });
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys', exact: true }).click();
    const row = () => page.locator('table[aria-label="API keys"] tbody tr', { hasText: 'scoped key' });
    await row().getByTestId('key-access').filter({ hasText: 'all models' }).waitFor();

    await page.getByRole('button', { name: 'Edit the access of scoped key' }).click();
    await page.getByLabel('Allowed models (ids or globs, comma-separated)').fill('switchyard/sim-f*, switchyard/sim-embed');
    await page.getByLabel('Max requests at once').fill('3');
    await page.getByRole('button', { name: 'Save access' }).click();
    await row().getByTestId('key-access').filter({ hasText: 'switchyard/sim-f*, switchyard/sim-embed · 3 at once' }).waitFor();
    await screenshots(page, 'keys-access');
    problems.assertNone("editing a key's access");

    const record = (await gw.services.stores.accounts.getKey(scoped.record.hash))!;
    assert.deepEqual(record.allowlist, { models: ['switchyard/sim-f*', 'switchyard/sim-embed'] });
    assert.equal(record.maxInFlight, 3);
    const ask = (model: string) =>
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model, messages: [{ role: 'user', content: 'hi' }] },
        { authorization: `Bearer ${scoped.key}` },
      );
    assert.equal((await ask('switchyard/sim-fast')).status, 200);
    assert.equal((await ask('switchyard/sim-pro')).json.error.code, 'model_not_found');

    // Emptied, the list is gone: every model again.
    await page.getByRole('button', { name: 'Edit the access of scoped key' }).click();
    await page.getByLabel('Allowed models (ids or globs, comma-separated)').fill('');
    await page.getByLabel('Max requests at once').fill('');
    await page.getByRole('button', { name: 'Save access' }).click();
    await row()
      .getByTestId('key-access')
      .filter({ hasText: /^all models$/ })
      .waitFor();
    assert.equal((await ask('switchyard/sim-pro')).status, 200);
    problems.assertNone("clearing a key's access");
    await context.close();
  });

  test("All keys: the operator edits a key's allowed models; the gateway refuses the other models, the key's /v1/models lists only the allowed", async () => {
    const admin = await createAdminKey(gw, 'operator');
    const scoped = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'operator-scoped key' });
    const { page, problems, close } = await signedIn(browser, gw.origin, admin.key);
    await openPage(page, 'All keys');
    const row = () => page.locator('table[aria-label="All keys"] tbody tr', { hasText: 'operator-scoped key' });
    await row()
      .getByTestId('key-access')
      .filter({ hasText: /^all models$/ })
      .waitFor();
    await page.getByRole('button', { name: 'Edit the access of operator-scoped key' }).click();
    await page.getByLabel('Allowed models (ids or globs, comma-separated)').fill('switchyard/sim-fast');
    await page.getByRole('button', { name: 'Save access' }).click();
    await row()
      .getByTestId('key-access')
      .filter({ hasText: /^switchyard\/sim-fast$/ })
      .waitFor();
    problems.assertNone("the operator editing a key's access");

    const listedKeys = (await call('GET', `${gw.origin}/api/v1/admin/keys?account=${gw.accountId}&limit=200`, admin.key)).json
      .data as Array<{ hash: string; allowed_models: string[] | null }>;
    assert.deepEqual(listedKeys.find((k) => k.hash === scoped.record.hash)?.allowed_models, ['switchyard/sim-fast']);
    const ask = (model: string) =>
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model, messages: [{ role: 'user', content: 'hi' }] },
        { authorization: `Bearer ${scoped.key}` },
      );
    assert.equal((await ask('switchyard/sim-fast')).status, 200);
    assert.equal((await ask('switchyard/sim-pro')).json.error.code, 'model_not_found');
    const listed = (await call('GET', `${gw.baseUrl}/models`, scoped.key)).json.data.map((m: { id: string }) => m.id);
    assert.deepEqual(listed, ['switchyard/sim-fast']);
    await close();
  });
});
