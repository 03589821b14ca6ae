import type { Browser, Page } from 'playwright-core';
import { DESKTOP, watchPage, type PageProblems } from './browser-support.ts';
import { noneLoading } from './dashboard-page-list.ts';

// A new browser context signed in to the dashboard with a key (management or admin), at
// desktop width, watched for console errors and failed requests.

export async function signedIn(
  browser: Browser,
  origin: string,
  key: string,
): Promise<{ page: Page; problems: PageProblems; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const problems = watchPage(page);
  await page.goto(`${origin}/dashboard/`);
  await page.getByLabel('Key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  // The first page's calls have answered (leaving it earlier aborts them: failed requests).
  await page.waitForFunction(noneLoading);
  return { page, problems, close: () => context.close() };
}

/** Opens a page by its link in the navigation and waits for its heading. */
export async function openPage(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
}
