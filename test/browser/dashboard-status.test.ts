import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey, createExpiredKey } from '../support/admin-client.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage, type PageProblems } from './browser-support.ts';

// Status everywhere is the API's status: an expired key is "expired" (not a green "active")
// on the account's Keys page and the operator's All keys page (which names accounts, not
// ids); a refused request (402) is not a row in Activity; an unknown route is "not found".

const skip = chromiumUnavailable();

interface PageDocument {
  querySelectorAll(selector: string): ArrayLike<unknown>;
}
function noneLoading(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return d.querySelectorAll('.loading').length === 0;
}

describe("the dashboard shows the API's status", { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  const expiredName = 'expired yesterday';
  before(async () => {
    gw = await startTestGateway();
    browser = await launchChromium();
    await createExpiredKey(gw, gw.accountId, expiredName, new Date(Date.now() - 86_400_000).toISOString());
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function signedIn(key: string, path = ''): Promise<{ page: Page; problems: PageProblems }> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.waitForFunction(noneLoading);
    // Straight to the page by its address (the session cookie stays).
    await page.goto(`${gw.origin}/dashboard/${path}`);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return { page, problems };
  }

  test('an expired key is "expired" on the Keys page, and in GET /api/v1/keys', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'status', management: true });
    const listed = await call('GET', `${gw.origin}/api/v1/keys`, mgmt.key);
    assert.equal(listed.status, 200);
    const byName = new Map((listed.json.data as { name: string; status: string }[]).map((k) => [k.name, k.status]));
    assert.equal(byName.get(expiredName), 'expired');
    assert.equal(byName.get('test key'), 'active');

    const { page, problems } = await signedIn(mgmt.key, 'keys');
    const table = page.locator('table[aria-label="API keys"]');
    const expired = table.locator('tbody tr', { hasText: expiredName }).getByTestId('key-status');
    assert.equal(await expired.textContent(), 'expired');
    assert.equal(await expired.getAttribute('class'), 'badge off');
    assert.equal(await table.locator('tbody tr', { hasText: 'test key' }).getByTestId('key-status').textContent(), 'active');
    await screenshots(page, 'keys-status');
    problems.assertNone('the Keys page');
    await page.context().close();
  });

  test("the operator's All keys: a status column (expired, revoked) and account names, not ids", async () => {
    const admin = await createAdminKey(gw, 'status operator');
    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin.key, { name: 'Globex Corporation', type: 'user' });
    assert.equal(made.status, 201);
    const other = made.json.data.id as string;
    const otherKey = await call('POST', `${gw.origin}/api/v1/admin/accounts/${other}/keys`, admin.key, {
      name: 'globex revoked',
      kind: 'api',
    });
    assert.equal(otherKey.status, 201);
    assert.equal(
      (await call('PATCH', `${gw.origin}/api/v1/admin/keys/${otherKey.json.data.hash}`, admin.key, { disabled: true })).status,
      200,
    );

    const { page, problems } = await signedIn(admin.key, 'keys');
    const table = page.locator('table[aria-label="All keys"]');
    await table.getByRole('columnheader', { name: 'Status' }).waitFor();
    const expiredRow = table.locator('tbody tr', { hasText: expiredName });
    assert.equal(await expiredRow.getByTestId('key-status').textContent(), 'expired');
    await expiredRow.getByTestId('account-name').filter({ hasText: 'test account' }).waitFor();
    const revokedRow = table.locator('tbody tr', { hasText: 'globex revoked' });
    assert.equal(await revokedRow.getByTestId('key-status').textContent(), 'revoked');
    assert.equal(await revokedRow.getByTestId('account-name').textContent(), 'Globex Corporation');
    assert.equal(await revokedRow.getByTestId('account-name').getAttribute('title'), other, 'the id in the tooltip');
    assert.equal(await table.locator('tbody').getByText(gw.accountId, { exact: true }).count(), 0, 'no account id shown as the account');
    await screenshots(page, 'admin-keys-status');
    problems.assertNone('the All keys page');
    await page.context().close();
  });

  test('a refused request (402, a key at its limit) is no row in Activity; it is counted among the refusals', async () => {
    const models = await call('GET', `${gw.baseUrl}/models`, gw.key);
    const model = (models.json.data as { id: string; kind: string; pricing: { prompt: string } }[]).find(
      (m) => m.kind === 'chat' && Number(m.pricing.prompt) > 0,
    )!.id;
    const capped = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'capped at zero', limitUsd: '0' });
    const ask = (key: string) =>
      fetch(`${gw.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
    assert.equal((await ask(gw.key)).status, 200);
    assert.equal((await ask(capped.key)).status, 402);
    await gw.flush();

    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'activity', management: true });
    const { page, problems } = await signedIn(mgmt.key, 'activity');
    const rows = page.locator('table[aria-label="Generations"] tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1, 'only the answered request');
    assert.equal(await rows.filter({ hasText: 'capped at zero' }).count(), 0);
    assert.equal(await rows.getByTestId('row-status').textContent(), 'success');
    problems.assertNone('the Activity page');
    await page.context().close();

    const admin = await createAdminKey(gw, 'refusals operator');
    const op = await signedIn(admin.key, 'activity');
    const opRows = op.page.locator('table[aria-label="Generations"] tbody tr');
    await opRows.first().waitFor();
    assert.equal(await opRows.count(), 1);
    const refusals = op.page.locator('table[aria-label="Refused requests"] tbody tr');
    await refusals.first().waitFor();
    assert.equal(await refusals.count(), 1);
    assert.match((await refusals.first().textContent())!, /insufficient_quota/);
    op.problems.assertNone('the operator Activity page');
    await op.page.context().close();
  });

  test('an unknown route shows "Page not found", not the first page', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'lost', management: true });
    const { page, problems } = await signedIn(mgmt.key, 'no-such-page');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Overview' }).count(), 0);
    assert.equal(await page.locator('nav a[aria-current="page"]').count(), 0, 'no page is marked current');
    await screenshots(page, 'not-found');
    await page.getByRole('link', { name: 'Go to Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/');
    await page.waitForFunction(noneLoading);
    // A deeper unknown path too.
    await page.goto(`${gw.origin}/dashboard/keys/extra`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    problems.assertNone('the not-found page');
    await page.context().close();
  });
});
