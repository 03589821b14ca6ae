import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { ARTIFACTS, chromiumUnavailable, DESKTOP, launchChromium, PHONE, watchPage, type PageProblems } from './browser-support.ts';
import {
  ACCOUNT_PAGES,
  noneLoading,
  OPERATOR_PAGES,
  PAGES_YAML,
  pageName,
  screenshotFile,
  seedPages,
  showPage,
  webpScreenshot,
  WIDTHS,
  type DashboardPage,
} from './dashboard-pages.ts';

// Every page of the dashboard (the list in dashboard-pages.ts, checked here against the
// navigation the app shows), the account's and the operator's, at 1280 px and 390 px: none
// scrolls sideways, and no table is wider than its box (at phone width tables become cards).
// Each page's screenshot at both widths goes to test-artifacts/layout/, listed in
// test-artifacts/layout/index.md; `npm run screenshots` writes the same into docs/screenshots/.

const skip = chromiumUnavailable();
const SHOTS = `${ARTIFACTS}layout/`;

/** What is wider than it may be: the page itself, or a table wider than its box. Runs in the page. */
function overflows(): string[] {
  interface El {
    scrollWidth: number;
    clientWidth: number;
    getAttribute(n: string): string | null;
    parentElement: El | null;
    getBoundingClientRect(): { width: number };
  }
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

interface Shot {
  file: string;
  page: string;
  width: number;
}

/** The page at both widths: its screenshots, and what overflows (collected, so one run names every page that does). */
async function check(page: Page, problems: PageProblems, origin: string, p: DashboardPage, shots: Shot[]): Promise<string[]> {
  const found: string[] = [];
  for (const size of WIDTHS) {
    await showPage(page, origin, p, size);
    const file = screenshotFile(p, size.width);
    writeFileSync(`${SHOTS}${file}`, await webpScreenshot(page));
    shots.push({ file, page: pageName(p), width: size.width });
    for (const o of await page.evaluate(overflows)) found.push(`${pageName(p)} at ${size.width} px: ${o}`);
  }
  problems.assertNone(pageName(p));
  return found;
}

/** The navigation's page titles, in order: what dashboard-pages.ts must list. */
async function navTitles(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents();
}

describe('every dashboard page fits at 1280 px and 390 px', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  const shots: Shot[] = [];
  let keys: { management: string; admin: string };
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    gw = await startTestGateway({ yaml: PAGES_YAML });
    browser = await launchChromium();
    keys = await seedPages(gw);
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
    const { page, problems } = await signedIn(keys.management);
    assert.deepEqual(
      await navTitles(page),
      ACCOUNT_PAGES.map((p) => p.title),
      'dashboard-pages.ts lists every page of the navigation',
    );
    const found: string[] = [];
    for (const p of ACCOUNT_PAGES) found.push(...(await check(page, problems, gw.origin, p, shots)));
    // A model opened (its endpoints and its code sample) at phone width.
    await page.setViewportSize(PHONE);
    await page.goto(`${gw.origin}/dashboard/models`);
    await page.locator('table[aria-label="Models"] tbody tr').first().click();
    await page.locator('pre.code').waitFor();
    await page.waitForFunction(noneLoading);
    writeFileSync(`${SHOTS}account-model-sample-390.webp`, await webpScreenshot(page));
    shots.push({ file: 'account-model-sample-390.webp', page: 'Account: Models, a model opened (code sample)', width: 390 });
    for (const o of await page.evaluate(overflows)) found.push(`account Models, a model opened, at 390 px: ${o}`);
    assert.deepEqual(found, [], 'no page scrolls sideways, no table is wider than its box');
    await page.context().close();
  });

  test("the operator's pages", async () => {
    const { page, problems } = await signedIn(keys.admin);
    assert.deepEqual(
      await navTitles(page),
      OPERATOR_PAGES.map((p) => p.title),
      'dashboard-pages.ts lists every page of the navigation',
    );
    const found: string[] = [];
    for (const p of OPERATOR_PAGES) found.push(...(await check(page, problems, gw.origin, p, shots)));
    assert.deepEqual(found, [], 'no page scrolls sideways, no table is wider than its box');
    await page.context().close();
  });
});
