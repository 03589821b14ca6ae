import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The Settings page's "Your own provider keys" (docs/byok.md): a management session stores
// its account's key for a provider (checked at the emulator with that key), sees it by its
// last four characters only — the page never holds the key once stored — and removes it.

const skip = chromiumUnavailable();
const ACCOUNT_KEY = 'sk-dash-own-key-R4tY7uI0oP2a';

interface PageDocument {
  body: { innerHTML: string };
}

describe('the dashboard Settings: your own provider keys', { skip }, () => {
  let up: OpenAIChatEmulator;
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    up = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      env: { BYOK_MASTER: randomBytes(32).toString('base64') },
      yaml: `sim: false
byok: { master_key: "env:BYOK_MASTER" }
providers:
  - id: acme-up
    kind: openai
    base_url: "${up.baseUrl}"
    api_key: "sk-operator-dash-000000"
models:
  - id: acme/own
    context_length: 32000
    endpoints:
      - provider: acme-up
        model: m-own
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await up?.close();
  });

  test('store a key (checked at the provider), see only its last four, remove it', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'settings', management: true });
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // The first page's calls have answered (leaving it earlier aborts them: failed requests).
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('.loading')
          .length === 0,
    );
    await page.goto(`${gw.origin}/dashboard/settings`);
    const section = page.getByRole('region', { name: 'Your own provider keys' });
    await section.getByText('No keys of your own.').waitFor();

    await section.getByLabel('Provider id').fill('acme-up');
    await section.getByLabel(/^Key/).fill(ACCOUNT_KEY);
    await section.getByLabel('Mode').selectOption('only');
    await section.getByLabel('Label (optional)').fill('from the dashboard');
    await section.getByRole('button', { name: 'Store key' }).click();
    await section
      .getByRole('status')
      .filter({ hasText: `key …${ACCOUNT_KEY.slice(-4)}` })
      .waitFor();
    const row = section.locator('table[aria-label="Stored provider keys"] tbody tr', { hasText: 'acme-up' });
    assert.match((await row.textContent()) ?? '', /from the dashboard.*only/);
    assert.equal(String(up.requests.find((r) => r.path === '/v1/models')?.headers.authorization), `Bearer ${ACCOUNT_KEY}`);
    const html = await page.evaluate(() => (globalThis as unknown as { document: PageDocument }).document.body.innerHTML);
    assert.equal(html.includes(ACCOUNT_KEY), false, 'the page still holds the key after storing it');
    await screenshots(page, 'settings-byok');

    // A request served with the key: Activity marks it BYOK.
    const answer = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/own', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(answer.status, 200);
    await gw.flush();
    await page.goto(`${gw.origin}/dashboard/activity`);
    await page.getByTestId('row-byok').first().waitFor();
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('.loading')
          .length === 0,
    );
    await page.goto(`${gw.origin}/dashboard/settings`);

    await row.getByRole('button', { name: 'Remove the key for acme-up' }).click();
    await section.getByText('No keys of your own.').waitFor();
    problems.assertNone('the Settings page');
    await context.close();
  });
});
