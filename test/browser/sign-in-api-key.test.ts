import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium } from './browser-support.ts';

// The sign-in page, given the key a newcomer has (the first start's API key, for calling
// models): it says what to paste instead and the command that makes it.

const skip = chromiumUnavailable();
let gw: TestGateway;
let browser: Browser;

before(async () => {
  if (skip !== undefined) return;
  gw = await startTestGateway();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await gw?.close();
});

test(
  'an API key pasted into the sign-in page: it says to sign in with a management key and shows the command that makes one',
  { skip },
  async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${gw.origin}/dashboard/`);
    // Before any attempt, the page says where a management key comes from.
    await page.getByText('printed the command that makes a management key').waitFor();
    await page.getByLabel('Key').fill(gw.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.textContent();
    assert.match(text ?? '', /This is an API key: it calls models and cannot sign in/);
    assert.ok(text?.includes(`keys create --account ${gw.accountId} --name dashboard --management`), text ?? '');
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'not signed in');
    await context.close();
  },
);
