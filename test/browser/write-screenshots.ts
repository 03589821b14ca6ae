// `npm run screenshots`: every page of the dashboard (dashboard-pages.ts, the overflow test's
// list) at 1280 px and 390 px, as WebP, into docs/screenshots/ — committed, and linked from
// docs/dashboard.md (test/docs/dashboard-screenshots.test.ts checks both). Runs a real gateway
// on loopback with the overflow test's rows and a real headless Chromium, as the browser tests
// do. Build the dashboard first (the npm script does).

import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startTestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, launchChromium } from './browser-support.ts';
import {
  ACCOUNT_PAGES,
  OPERATOR_PAGES,
  PAGES_YAML,
  screenshotFile,
  screenshotsTable,
  seedPages,
  showPage,
  TABLE_END,
  TABLE_START,
  webpScreenshot,
  WIDTHS,
  type DashboardPage,
} from './dashboard-pages.ts';
import { signedIn } from './signed-in.ts';

const SCREENSHOTS_DIR = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const DASHBOARD_DOC = fileURLToPath(new URL('../../docs/dashboard.md', import.meta.url));

/** docs/dashboard.md with its table of screenshots written again (between its markers). */
function writeTable(): void {
  const doc = readFileSync(DASHBOARD_DOC, 'utf8');
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/dashboard.md has no ${TABLE_START} ... ${TABLE_END} block`);
  writeFileSync(DASHBOARD_DOC, doc.slice(0, start) + screenshotsTable() + doc.slice(end + TABLE_END.length));
}

async function shoot(browser: Browser, origin: string, key: string, pages: readonly DashboardPage[]): Promise<string[]> {
  const { page, problems, close } = await signedIn(browser, origin, key);
  const written: string[] = [];
  try {
    for (const p of pages) {
      for (const size of WIDTHS) {
        await showPage(page, origin, p, size);
        const file = screenshotFile(p, size.width);
        writeFileSync(`${SCREENSHOTS_DIR}${file}`, await webpScreenshot(page));
        written.push(file);
      }
      problems.assertNone(p.title);
    }
  } finally {
    await close();
  }
  return written;
}

async function main(): Promise<void> {
  const skip = chromiumUnavailable();
  if (skip !== undefined) throw new Error(skip);
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const gw = await startTestGateway({ yaml: PAGES_YAML });
  const browser = await launchChromium();
  try {
    const keys = await seedPages(gw);
    const written = [
      ...(await shoot(browser, gw.origin, keys.management, ACCOUNT_PAGES)),
      ...(await shoot(browser, gw.origin, keys.admin, OPERATOR_PAGES)),
    ];
    // Files of pages no longer listed go.
    for (const f of readdirSync(SCREENSHOTS_DIR)) if (f.endsWith('.webp') && !written.includes(f)) rmSync(`${SCREENSHOTS_DIR}${f}`);
    const bytes = written.reduce((n, f) => n + statSync(`${SCREENSHOTS_DIR}${f}`).size, 0);
    writeTable();
    console.log(`${written.length} screenshots in docs/screenshots/, ${(bytes / 1024).toFixed(0)} KiB in all`);
  } finally {
    await browser.close();
    await gw.close();
  }
}

await main();
