import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call, createAdminKey } from '../support/admin-client.ts';
import { PRICED_SIM, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The generation page lists the account's guardrail rules that fired on the request
// (docs/governance.md#guardrails): each rule's name, detector and action, never the text it
// matched.

const skip = chromiumUnavailable();
const SECRET = 'jane.doe@example.com';

describe('the dashboard generation page: guardrails that fired', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    gw = await startTestGateway({ yaml: PRICED_SIM });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('a redacted request shows its rule in the Guardrails section, not the text', async () => {
    const admin = (await createAdminKey(gw)).key;
    const rules = [{ detector: 'email', action: 'redact', name: 'mail' }];
    const set = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { guardrails: rules });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    const answer = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/paid-sim', messages: [{ role: 'user', content: `write to ${SECRET}` }] }),
    });
    assert.equal(answer.status, 200, await answer.text());
    await gw.flush();

    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'viewer', management: true });
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('.loading')
          .length === 0,
    );
    await page.goto(`${gw.origin}/dashboard/activity`);
    await page.locator('table[aria-label="Generations"] tbody tr').first().click();
    const dialog = page.locator('dialog.record');
    const section = dialog.getByRole('region', { name: 'Guardrails' });
    await section.waitFor();
    const hit = (await section.getByTestId('guardrail-hit').textContent()) ?? '';
    assert.match(hit, /redacted\s*mail \(email\)/);
    const html = await dialog.innerHTML();
    assert.equal(html.includes(SECRET), false, 'the page never shows the matched text');
    await screenshots(page, 'generation-guardrails');
    problems.assertNone('the generation page');
    await context.close();
  });
});
