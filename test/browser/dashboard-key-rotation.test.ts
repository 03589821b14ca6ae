import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The Keys page's Rotate button, in Chromium: a new key for the same key record, shown once;
// the old key stops at once (no overlap) or keeps working for the overlap chosen.

const skip = chromiumUnavailable();
const chat = { model: 'switchyard/sim-pro', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };

describe('dashboard: key rotation', { skip }, () => {
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

  test('Rotate on the Keys page: the new key once, same row (name, limit); the old key refused, or working during the overlap', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'rotator', management: true });
    const k = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ci key', limitUsd: '2' });
    const status = async (key: string) =>
      (await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status;
    assert.equal(await status(k.key), 200);

    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys', exact: true }).click();
    const row = page.locator('table[aria-label="API keys"] tbody tr', { hasText: 'ci key' });
    await row.waitFor();

    // No overlap (the default): the old key stops now.
    await page.getByRole('button', { name: 'Rotate ci key' }).click();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const notice = page.getByTestId('rotated-key');
    await notice.filter({ hasText: 'The old key no longer works.' }).waitFor();
    const first = (await page.getByTestId('rotated-key-value').textContent())!;
    assert.match(first, /^sk-sy-v1-/);
    assert.equal(await status(k.key), 401);
    assert.equal(await status(first), 200);
    assert.equal((await gw.services.stores.accounts.getKey(k.record.hash))!.name, 'ci key', 'the same record');
    await screenshots(page, 'key-rotated');
    await page.getByRole('button', { name: 'Done' }).click();

    // An overlap of an hour: both work.
    await page.getByRole('button', { name: 'Rotate ci key' }).click();
    await page.getByLabel('The old key keeps working').selectOption('3600');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await notice.filter({ hasText: 'The old key works until' }).waitFor();
    const second = (await page.getByTestId('rotated-key-value').textContent())!;
    assert.notEqual(second, first);
    assert.equal(await status(first), 200);
    assert.equal(await status(second), 200);
    assert.equal(await row.getByTestId('key-limit').filter({ hasText: '$2.00' }).count(), 1, 'the limit stays');
    problems.assertNone('rotating a key');
    await context.close();
  });
});
