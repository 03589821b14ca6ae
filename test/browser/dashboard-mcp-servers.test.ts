import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// The account's MCP servers page in Chromium: add one (its header value never shown again),
// a host the operator does not allow refused with the API's message, remove one.

const skip = chromiumUnavailable();

describe("dashboard: the account's MCP servers", { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}mcp: { allow_private_addresses: true, allowed_hosts: ["127.0.0.1"] }\n` });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('lists, adds and removes them; the header value is not shown; a refused host says why', async () => {
    const manager = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'manager', management: true })).key;
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(manager);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'MCP servers', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'MCP servers' }).waitFor();
    await page.getByText('Nothing here yet.').waitFor();

    const form = page.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Name').fill('crm');
    await form.getByLabel('URL').fill('http://127.0.0.1:9/mcp');
    await form.getByLabel('Its value (never shown again)').fill('Bearer dash-secret-55');
    await form.getByLabel('Only these tools (optional, comma-separated)').fill('lookup, search');
    await form.getByRole('button', { name: 'Add server' }).click();
    const table = page.getByRole('table', { name: 'MCP servers' });
    await table.getByText('crm', { exact: true }).waitFor();
    assert.match(await table.innerText(), /http:\/\/127\.0\.0\.1:9\/mcp[\s\S]*Authorization[\s\S]*lookup, search/);
    assert.ok(!(await page.content()).includes('dash-secret-55'), 'the header value is not on the page');
    assert.deepEqual(
      (await gw.services.stores.mcpServers.list(gw.accountId)).map((s) => s.headers),
      [{ Authorization: 'Bearer dash-secret-55' }],
    );
    await screenshots(page, 'dashboard-mcp-servers');

    problems.allow(/\/api\/v1\/mcp-servers$/);
    await form.getByLabel('Name').fill('far');
    await form.getByLabel('URL').fill('https://mcp.elsewhere.example/mcp');
    await form.getByRole('button', { name: 'Add server' }).click();
    await form
      .getByRole('alert')
      .getByText(/not a host the operator allows/)
      .waitFor();
    // The refused POST's 400 is expected (Chromium logs it to the console too).
    assert.deepEqual(problems.list.splice(0), [
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);

    page.once('dialog', (d) => void d.accept());
    await table.getByRole('button', { name: 'Remove crm' }).click();
    await page.getByText('Nothing here yet.').waitFor();
    assert.deepEqual(await gw.services.stores.mcpServers.list(gw.accountId), []);
    problems.assertNone('MCP servers page');
    await context.close();
  });
});
