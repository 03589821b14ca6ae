import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';

// A real headless Chromium (Debian's `chromium` package) for the dashboard's end-to-end
// tests; nothing downloads a browser. When /usr/bin/chromium is missing and the tests run
// as root, it is installed with apt-get; otherwise the tests skip, saying why.

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Undefined when Chromium is there (installing it if possible), else the reason to skip. */
export function chromiumUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.getuid?.() !== 0) return `${CHROMIUM} is missing and the tests do not run as root: apt-get install chromium`;
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'ignore' });
  } catch (err) {
    return `apt-get install chromium failed: ${(err as Error).message}`;
  }
  return existsSync(CHROMIUM) ? undefined : `apt-get install chromium left no ${CHROMIUM}`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** What went wrong on a page: console errors (CSP violations included), failed requests, 4xx/5xx answers. */
export interface PageProblems {
  list: string[];
  /** Answers expected to fail (e.g. the model call with a disabled key is not the page's). */
  allow(pattern: RegExp): void;
  /** Asserts nothing went wrong since the last check, then starts over. */
  assertNone(where: string): void;
}

export function watchPage(page: Page): PageProblems {
  const list: string[] = [];
  const allowed: RegExp[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') list.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => list.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => list.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`));
  page.on('response', (res) => {
    if (res.status() >= 400 && !allowed.some((a) => a.test(res.url())))
      list.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return {
    list,
    allow: (p) => {
      allowed.push(p);
    },
    assertNone(where) {
      const found = list.splice(0);
      assert.deepEqual(found, [], `${where}: no console errors or failed requests`);
    },
  };
}

export { DESKTOP, PHONE } from './dashboard-page-list.ts';
import { DESKTOP, PHONE } from './dashboard-page-list.ts';

/** Screenshots of the page at desktop and phone widths under test-artifacts/ (not committed). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${ARTIFACTS}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${ARTIFACTS}${name}-desktop.png`, fullPage: true });
}
