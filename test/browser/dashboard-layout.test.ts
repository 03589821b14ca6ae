import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey, createExpiredKey } from '../support/admin-client.ts';
import { ARTIFACTS, chromiumUnavailable, DESKTOP, launchChromium, PHONE, watchPage, type PageProblems } from './browser-support.ts';

// Every page of the dashboard, the account's and the operator's, at 1280 px and 390 px:
// none scrolls sideways, and no table is wider than its box (at phone width tables become
// cards). Each page's screenshot at both widths goes to test-artifacts/layout/, listed in
// test-artifacts/layout/index.md (docs/dashboard.md links it).

const skip = chromiumUnavailable();
const SHOTS = `${ARTIFACTS}layout/`;

interface PageDocument { querySelectorAll(selector: string): ArrayLike<unknown> }
function noneLoading(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return d.querySelectorAll('.loading').length === 0;
}

/** What is wider than it may be: the page itself, or a table wider than its box. Runs in the page. */
function overflows(): string[] {
  interface El { scrollWidth: number; clientWidth: number; getAttribute(n: string): string | null; parentElement: El | null; getBoundingClientRect(): { width: number } }
  const d = (globalThis as unknown as { document: { scrollingElement: El; querySelectorAll(s: string): ArrayLike<El> } }).document;
  const found: string[] = [];
  const root = d.scrollingElement;
  if (root.scrollWidth > root.clientWidth) found.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
  for (const t of Array.from(d.querySelectorAll('table'))) {
    const box = t.parentElement!;
    const width = Math.ceil(t.getBoundingClientRect().width);
    if (width > box.clientWidth + 1) found.push(`table "${t.getAttribute('aria-label')}" is ${width} px in a ${box.clientWidth} px box`);
  }
  return found;
}

interface Shot { file: string; page: string; width: number }

/** The page at both widths: its screenshots, and what overflows (collected, so one run names every page that does). */
async function check(page: Page, problems: PageProblems, origin: string, who: string, route: string, title: string, shots: Shot[]): Promise<string[]> {
  const found: string[] = [];
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`${origin}/dashboard/${route}`);
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
    await page.waitForFunction(noneLoading);
    const file = `${who}-${route === '' ? 'home' : route}-${size.width}.png`;
    await page.screenshot({ path: `${SHOTS}${file}`, fullPage: true });
    shots.push({ file, page: `${who === 'account' ? 'Account' : 'Operator'}: ${title}`, width: size.width });
    for (const o of await page.evaluate(overflows)) found.push(`${who} ${title} at ${size.width} px: ${o}`);
  }
  problems.assertNone(`${who} ${title}`);
  return found;
}

describe('every dashboard page fits at 1280 px and 390 px', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  const shots: Shot[] = [];
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    gw = await startTestGateway();
    browser = await launchChromium();
    // Rows as wide as real ones: long names, an app title, an expired key, a limit, audit details.
    const admin = await createAdminKey(gw, 'layout operator');
    await createExpiredKey(gw, gw.accountId, 'an expired key with a long descriptive name', new Date(Date.now() - 3_600_000).toISOString());
    await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'production backend service key', limitUsd: '25', limitReset: 'daily' });
    const models = await call('GET', `${gw.baseUrl}/models`, gw.key);
    const model = (models.json.data as { id: string; kind: string }[]).find((m) => m.kind === 'chat')!.id;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gw.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-title': 'A fairly long application title' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: `hello ${i}` }] }),
      });
      assert.equal(res.status, 200);
    }
    const acct = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin.key, { name: 'Northwind Traders International', type: 'user' });
    assert.equal(acct.status, 201, JSON.stringify(acct.json));
    const grant = await call('POST', `${gw.origin}/api/v1/admin/accounts/${acct.json.data.id}/credits`, admin.key,
      { kind: 'grant', amount: '125.50', reason: 'a welcome grant for the pilot, agreed with their finance team on the call' });
    assert.equal(grant.status, 201, JSON.stringify(grant.json));
    await gw.flush();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    const list = shots.map((s) => `- ${s.page}, ${s.width} px: [${s.file}](${s.file})`).join('\n');
    writeFileSync(`${SHOTS}index.md`, `# Dashboard screenshots (test/browser/dashboard-layout.test.ts)\n\n${list}\n`);
  });

  async function signedIn(key: string): Promise<{ page: Page; problems: PageProblems }> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = watchPage(page);
    await page.goto(`${gw.origin}/dashboard/`);
    await page.getByLabel('Key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // The first page's calls have answered (leaving it earlier aborts them: failed requests).
    await page.waitForFunction(noneLoading);
    return { page, problems };
  }

  test("the account's pages", async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'layout', management: true });
    const { page, problems } = await signedIn(mgmt.key);
    const found: string[] = [];
    for (const [route, title] of [['', 'Overview'], ['keys', 'Keys'], ['activity', 'Activity'], ['credits', 'Credits'],
      ['models', 'Models'], ['playground', 'Playground'], ['mcp-servers', 'MCP servers'], ['members', 'Members'], ['settings', 'Settings']] as const) {
      found.push(...await check(page, problems, gw.origin, 'account', route, title, shots));
    }
    // A model opened (its endpoints and its code sample) at phone width.
    await page.setViewportSize(PHONE);
    await page.goto(`${gw.origin}/dashboard/models`);
    await page.locator('table[aria-label="Models"] tbody tr').first().click();
    await page.locator('pre.code').waitFor();
    await page.waitForFunction(noneLoading);
    await page.screenshot({ path: `${SHOTS}account-model-sample-390.png`, fullPage: true });
    shots.push({ file: 'account-model-sample-390.png', page: 'Account: Models, a model opened (code sample)', width: 390 });
    for (const o of await page.evaluate(overflows)) found.push(`account Models, a model opened, at 390 px: ${o}`);
    assert.deepEqual(found, [], 'no page scrolls sideways, no table is wider than its box');
    await page.context().close();
  });

  test("the operator's pages", async () => {
    const admin = await createAdminKey(gw, 'layout operator 2');
    const { page, problems } = await signedIn(admin.key);
    const found: string[] = [];
    for (const [route, title] of [['', 'Accounts'], ['keys', 'All keys'], ['activity', 'Activity'], ['usage', 'Usage'], ['health', 'Health'],
      ['audit', 'Audit log'], ['config', 'Configuration'], ['models', 'Models']] as const) {
      found.push(...await check(page, problems, gw.origin, 'operator', route, title, shots));
    }
    assert.deepEqual(found, [], 'no page scrolls sideways, no table is wider than its box');
    await page.context().close();
  });
});
