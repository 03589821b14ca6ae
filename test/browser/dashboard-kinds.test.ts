import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage, type PageProblems } from './browser-support.ts';

// Requests that are not chat where the dashboard shows requests: an embeddings request in
// Activity with its kind, the Overview's usage by kind, and the Models page's kind,
// modalities and per-image / per-character / per-second prices, in Chromium.

const skip = chromiumUnavailable();

const YAML = `${SIM_ONLY}models:
  - id: acme/painter
    kind: image
    context_length: 4000
    endpoints:
      - provider: sim
        model: sim-embed
        pricing: { prompt: "0", completion: "0", image_output: "0.04" }
  - id: acme/voice
    kind: speech
    context_length: 4000
    endpoints:
      - provider: sim
        model: sim-embed
        pricing: { prompt: "0", completion: "0", character: "0.000015" }
  - id: acme/scribe
    kind: transcription
    context_length: 4000
    endpoints:
      - provider: sim
        model: sim-embed
        pricing: { prompt: "0", completion: "0", audio_second: "0.0001" }
`;

async function visit(page: Page, title: string, ready: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.locator(ready).first().waitFor();
  const loading = page.locator('.loading');
  while ((await loading.count()) > 0) await loading.first().waitFor({ state: 'detached' });
}

describe('dashboard: the kinds of request', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  before(async () => {
    gw = await startTestGateway({ yaml: YAML });
    browser = await launchChromium();
    const auth = { authorization: `Bearer ${gw.key}` };
    const embedded = await postJson(`${gw.baseUrl}/embeddings`, { model: 'switchyard/sim-embed', input: ['to embed', 'and this'] }, auth);
    assert.equal(embedded.status, 200, embedded.text);
    const chatted = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(chatted.status, 200, chatted.text);
    await gw.flush();
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'kinds', management: true });
    const context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(mgmt.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('Activity: the embeddings request shows with its kind, beside the chat request', async () => {
    await visit(page, 'Activity', 'table[aria-label="Generations"]');
    const rows = page.locator('table[aria-label="Generations"] tbody tr');
    const embed = rows.filter({ hasText: 'switchyard/sim-embed' });
    assert.equal(await embed.count(), 1);
    assert.equal(await embed.getByTestId('row-kind').textContent(), 'embedding');
    assert.equal(await embed.getByTestId('row-kind').getAttribute('title'), 'POST embeddings');
    assert.equal(await rows.filter({ hasText: 'switchyard/sim-pro' }).getByTestId('row-kind').textContent(), 'chat');
    await screenshots(page, 'activity-kinds');
    problems.assertNone('the Activity page');
  });

  test('Overview: usage by kind, one row per kind', async () => {
    await visit(page, 'Overview', '.stat-value');
    const table = page.locator('table[aria-label="Usage by kind"]');
    await table.locator('tbody tr').first().waitFor();
    const names = await table.locator('td[data-label="Name"]').allTextContents();
    assert.deepEqual(names.sort(), ['chat', 'embedding']);
    assert.equal(await table.locator('tbody tr', { hasText: 'embedding' }).locator('td[data-label="Requests"]').textContent(), '1');
    problems.assertNone('the Overview page');
  });

  test("Models: each model's kind, modalities and the prices it bills besides tokens", async () => {
    await visit(page, 'Models', 'table[aria-label="Models"]');
    const row = (id: string) =>
      page.locator('table[aria-label="Models"] tbody tr', { has: page.locator('code', { hasText: new RegExp(`^${id}$`) }) });
    assert.equal(await row('switchyard/sim-embed').getByTestId('model-kind').textContent(), 'embedding');
    assert.equal(await row('switchyard/sim-embed').getByTestId('model-modalities').textContent(), 'text → embeddings');
    assert.equal(await row('switchyard/sim-pro').getByTestId('model-kind').textContent(), 'chat');
    assert.equal(await row('acme/painter').getByTestId('model-modalities').textContent(), 'text → image');
    assert.equal(await row('acme/painter').getByTestId('model-task-prices').textContent(), '$0.04 / image');
    assert.equal(await row('acme/voice').getByTestId('model-task-prices').textContent(), '$15.00 / 1M chars');
    assert.equal(await row('acme/scribe').getByTestId('model-kind').textContent(), 'transcription');
    assert.equal(await row('acme/scribe').getByTestId('model-task-prices').textContent(), '$0.0001 / s of audio');
    await screenshots(page, 'models-kinds');
    problems.assertNone('the Models page');
  });
});
