import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { spend } from '../../web/src/format.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The operator's Usage page: spend and requests per day and per account, model, provider and
// key (GET /api/v1/admin/usage), at the API's exact figures, with the top movers.

const skip = chromiumUnavailable();

interface PageDocument {
  querySelectorAll(selector: string): ArrayLike<unknown>;
}
function noneLoading(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return d.querySelectorAll('.loading').length === 0;
}

describe("the operator's Usage page", { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let admin: { key: string };
  let model: string;
  before(async () => {
    gw = await startTestGateway();
    browser = await launchChromium();
    admin = await createAdminKey(gw, 'usage operator');
    const models = await call('GET', `${gw.baseUrl}/models`, gw.key);
    model = (models.json.data as { id: string; kind: string; pricing: { prompt: string } }[]).find(
      (m) => m.kind === 'chat' && Number(m.pricing.prompt) > 0,
    )!.id;
    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin.key, { name: 'Initech', type: 'user' });
    assert.equal(made.status, 201);
    assert.equal(
      (
        await call('POST', `${gw.origin}/api/v1/admin/accounts/${made.json.data.id}/credits`, admin.key, {
          kind: 'grant',
          amount: '10',
          reason: 'test',
        })
      ).status,
      201,
    );
    const initechKey = await call('POST', `${gw.origin}/api/v1/admin/accounts/${made.json.data.id}/keys`, admin.key, {
      name: 'initech backend',
      kind: 'api',
    });
    assert.equal(initechKey.status, 201);
    for (const key of [gw.key, gw.key, initechKey.json.key as string]) {
      const res = await call('POST', `${gw.baseUrl}/chat/completions`, key, { model, messages: [{ role: 'user', content: 'usage page' }] });
      assert.equal(res.status, 200);
    }
    await gw.flush();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('per account (by name), per model and per key, at the API figures; the top movers', async () => {
    const byAccount = await call('GET', `${gw.origin}/api/v1/admin/usage?group_by=account`, admin.key);
    assert.equal(byAccount.json.data.length, 2);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(admin.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.waitForFunction(noneLoading);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    await page.locator('table[aria-label="Usage by account"] tbody tr').first().waitFor();
    await page.waitForFunction(noneLoading);

    assert.equal(await page.getByTestId('usage-requests').textContent(), '3');
    assert.equal(await page.getByTestId('usage-spend').first().textContent(), spend(byAccount.json.totals.cost_usd));
    const table = page.locator('table[aria-label="Usage by account"]');
    for (const [name, id] of [
      ['test account', gw.accountId],
      ['Initech', undefined],
    ] as const) {
      const row = table.locator('tbody tr', { hasText: name });
      const api = (byAccount.json.data as { group: string; requests: number; cost_usd: string }[]).find((g) =>
        id === undefined ? g.group !== gw.accountId : g.group === id,
      )!;
      assert.equal(await row.getByTestId('usage-spend').textContent(), spend(api.cost_usd), `${name}'s spend`);
      assert.match((await row.textContent())!, new RegExp(`${name}${api.requests}`));
    }
    // The top movers: both accounts, this week against nothing the week before, the larger first.
    const movers = page.locator('table[aria-label="Top movers"] tbody tr');
    assert.equal(await movers.count(), 2);
    assert.equal(await movers.first().getByTestId('mover-name').textContent(), 'test account');
    assert.match((await movers.first().getByTestId('mover-change').textContent())!, /^\+\$/);
    await screenshots(page, 'admin-usage');

    await page.getByLabel('Group by').selectOption('model');
    await page.locator('table[aria-label="Usage by model"] tbody tr', { hasText: model }).waitFor();
    await page.getByLabel('Group by').selectOption('key');
    await page.locator('table[aria-label="Usage by key"] tbody tr', { hasText: 'initech backend' }).waitFor();
    await page.getByLabel('Group by').selectOption('provider');
    await page.locator('table[aria-label="Usage by provider"] tbody tr').first().waitFor();
    await page.waitForFunction(noneLoading);
    problems.assertNone('the Usage page');
    await context.close();
  });
});
