// Every page of the dashboard's navigation, the account's and the operator's: the one list
// the overflow test (dashboard-layout.test.ts, which also checks it against the navigation the
// app shows), the committed screenshots (`npm run screenshots`: write-screenshots.ts →
// docs/screenshots/) and their docs check (test/docs/dashboard-screenshots.test.ts) all read.
// No imports: the docs check reads it without a browser.

export type Who = 'account' | 'operator';
export interface DashboardPage {
  who: Who;
  route: string;
  title: string;
}

export const ACCOUNT_PAGES: readonly DashboardPage[] = (
  [
    ['', 'Overview'],
    ['keys', 'Keys'],
    ['activity', 'Activity'],
    ['credits', 'Credits'],
    ['models', 'Models'],
    ['playground', 'Playground'],
    ['mcp-servers', 'MCP servers'],
    ['webhooks', 'Webhooks'],
    ['members', 'Members'],
    ['settings', 'Settings'],
  ] as const
).map(([route, title]) => ({ who: 'account', route, title }));

export const OPERATOR_PAGES: readonly DashboardPage[] = (
  [
    ['', 'Accounts'],
    ['keys', 'All keys'],
    ['activity', 'Activity'],
    ['usage', 'Usage'],
    ['health', 'Health'],
    ['audit', 'Audit log'],
    ['config', 'Configuration'],
    ['models', 'Models'],
  ] as const
).map(([route, title]) => ({ who: 'operator', route, title }));

export const ALL_PAGES: readonly DashboardPage[] = [...ACCOUNT_PAGES, ...OPERATOR_PAGES];

/** Both sizes every page is checked and shown at: desktop, then phone. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const WIDTHS = [DESKTOP, PHONE] as const;

/** A page's screenshot file at a width: `account-keys-1280.webp`, `operator-home-390.webp`. */
export function screenshotFile(p: DashboardPage, width: number): string {
  return `${p.who}-${p.route === '' ? 'home' : p.route}-${width}.webp`;
}

/** "Account: Keys", "Operator: Audit log". */
export function pageName(p: DashboardPage): string {
  return `${p.who === 'account' ? 'Account' : 'Operator'}: ${p.title}`;
}

/** Where the committed screenshots are, from the repository's root. */
export const SCREENSHOTS_FOLDER = 'docs/screenshots';
/** The lines of docs/dashboard.md between these two are the table below (written by `npm run screenshots`). */
export const TABLE_START = '<!-- screenshots: written by npm run screenshots (test/browser/write-screenshots.ts) -->';
export const TABLE_END = '<!-- /screenshots -->';

/** docs/dashboard.md's table of screenshots: a page per row, its desktop and phone shots linked. */
export function screenshotsTable(): string {
  const link = (p: DashboardPage, width: number): string => `[${width} px](screenshots/${screenshotFile(p, width)})`;
  const rows = ALL_PAGES.map((p) => `| ${pageName(p)} | ${link(p, DESKTOP.width)} | ${link(p, PHONE.width)} |`);
  return [TABLE_START, '', '| page | desktop | phone |', '|---|---|---|', ...rows, '', TABLE_END].join('\n');
}

interface PageDocument {
  querySelectorAll(selector: string): ArrayLike<unknown>;
}
/** True once no part of the page says "Loading…". Runs in the page. */
export function noneLoading(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return d.querySelectorAll('.loading').length === 0;
}
