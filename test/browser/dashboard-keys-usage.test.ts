import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { formatNanos } from '../../src/money/money.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage, type PageProblems } from './browser-support.ts';

// The dashboard's key limits with a reset, per-key usage, top apps (X-Title), the CSV
// export of the whole filtered range, and the operator's management keys, in Chromium.

const skip = chromiumUnavailable();
const chat = { model: 'switchyard/sim-pro', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

/** The dashboard's `spend` of exact decimal text, for the tiny sums of the sim model (under $0.0001). */
function tinySpend(exact: string): string {
  const [whole, frac = ''] = exact.split('.');
  return `$${whole}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  const page = await context.newPage();
  const problems = watchPage(page);
  await page.goto(url);
  return { page, problems };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function visit(page: Page, title: string, ready: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.locator(ready).first().waitFor();
  await loaded(page);
}

/** Every loading state of the page is gone (locators, not page-evaluated code: the page's CSP forbids eval). */
async function loaded(page: Page): Promise<void> {
  const loading = page.locator('.loading');
  while ((await loading.count()) > 0) await loading.first().waitFor({ state: 'detached' });
}

function seeded(i: number, accountId: string, keyHash: string): SettlementRecord {
  return {
    id: `gen-old-${String(i).padStart(4, '0')}`,
    accountId,
    keyHash,
    model: 'switchyard/sim-pro',
    provider: 'sim',
    upstreamModel: 'sim-pro',
    upstreamId: null,
    dialect: 'chat',
    streamed: false,
    cancelled: false,
    status: 'success',
    errorCode: null,
    finishReason: 'stop',
    nativeFinishReason: 'stop',
    tokensPrompt: 5,
    tokensCompletion: 7,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    costNanos: 19_000n,
    costBreakdown: null,
    latencyMs: 12,
    firstTokenMs: 3,
    attempts: [],
    httpReferer: null,
    xTitle: null,
    endUser: null,
    createdAt: new Date(Date.UTC(2025, 5, 1) + i * 1000).toISOString(),
    holdRowWritten: false,
  };
}

describe('dashboard: keys, usage, apps, CSV, management keys', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    gw = await startTestGateway();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test("Overview's top apps show an app named by X-Title with its spend", async () => {
    const headers = { authorization: `Bearer ${gw.key}`, 'x-title': 'Invoice Bot', 'http-referer': 'https://invoices.example' };
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, headers);
      assert.equal(res.status, 200);
      ids.push(res.json.id);
    }
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${gw.key}` })).status, 200);
    await gw.flush();
    const exact = formatNanos(
      (await Promise.all(ids.map(async (id) => (await gw.services.stores.generations.getRecord(id))!.costNanos))).reduce(
        (sum, c) => sum + c,
        0n,
      ),
    );
    assert.equal((await gw.services.stores.generations.getRecord(ids[0]!))!.httpReferer, 'https://invoices.example');

    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'apps', management: true });
    const { page, problems } = await openPage(browser, `${gw.origin}/dashboard/`);
    await signIn(page, mgmt.key);
    const row = page.locator('table[aria-label="Top apps"] tbody tr', { hasText: 'Invoice Bot' });
    await row.waitFor();
    assert.equal(await row.getByTestId('top-spend').textContent(), tinySpend(exact));
    assert.equal(await row.locator('td[data-label="Requests"]').textContent(), '2');
    await screenshots(page, 'overview-apps');
    problems.assertNone('the Overview page');
    await page.context().close();
  });

  test('Keys: create a key with a daily limit, its usage per day when opened, edit the reset; Activity exports every filtered record as CSV', async () => {
    await gw.services.stores.ledger.settle(
      [],
      Array.from({ length: 120 }, (_, i) => seeded(i, gw.accountId, gw.keyHash)),
    );
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'keys page', management: true });
    const { page, problems } = await openPage(browser, `${gw.origin}/dashboard/`);
    await signIn(page, mgmt.key);
    await visit(page, 'Keys', 'table[aria-label="API keys"]');
    await page.getByLabel('Name').fill('daily key');
    await page.getByLabel('Credit limit (USD, optional)').fill('1');
    await page.getByLabel('Limit resets').selectOption('daily');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key-value').textContent())!;
    const row = () => page.locator('table[aria-label="API keys"] tbody tr', { hasText: 'daily key' });
    await row().getByTestId('key-limit').filter({ hasText: '$1.00 per day, $1.00 left' }).waitFor();

    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 200);
    await gw.flush();
    const exact = formatNanos((await gw.services.stores.generations.getRecord(res.json.id))!.costNanos);
    await visit(page, 'Overview', '.stat-value');
    await visit(page, 'Keys', 'table[aria-label="API keys"]');
    // The usage column fills in when the keys' usage (a call of its own) has answered: waited for, not raced.
    await row().locator('td[data-label="Requests, 30d"]').filter({ hasText: /^1$/ }).waitFor();
    assert.equal(await row().getByTestId('key-usage-30').textContent(), tinySpend(exact));
    await page.getByRole('button', { name: 'Usage of daily key' }).click();
    const usage = page.getByTestId('key-usage');
    await usage.locator('.chart canvas').first().waitFor();
    assert.equal(await usage.getByTestId('key-day-cost').first().textContent(), tinySpend(exact));
    await screenshots(page, 'keys-usage');
    problems.assertNone('the Keys page');

    await page.getByRole('button', { name: 'Edit the limit of daily key' }).click();
    await page.locator('#edit-reset').selectOption('weekly');
    await page.getByRole('button', { name: 'Save limit' }).click();
    await row().getByTestId('key-limit').filter({ hasText: 'per week' }).waitFor();
    assert.equal((await gw.services.stores.accounts.listKeys(gw.accountId)).find((k) => k.name === 'daily key')!.limitReset, 'weekly');
    problems.assertNone('editing a limit');

    // Activity: the page shows 50 records; the export has every one of the account's.
    await visit(page, 'Activity', 'table[aria-label="Generations"] tbody tr');
    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const text = readFileSync(await (await download).path(), 'utf8');
    const lines = text.split('\r\n').filter((l) => l !== '');
    const total = Number(
      (gw.db.prepare('SELECT count(*) AS n FROM generations WHERE account_id = ?').get(gw.accountId) as { n: number }).n,
    );
    assert.ok(total > 120, `${total} records`);
    assert.equal(lines.length, total + 1, 'a header and every record, not the 50 on screen');
    assert.ok(lines.some((l) => l.includes(res.json.id)));
    await screenshots(page, 'activity-export');
    problems.assertNone('the Activity page');
    await page.context().close();
  });

  test('the operator creates a management key for an account, shown once with a copy button; it manages that account', async () => {
    const admin = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true });
    const customer = await gw.services.accountService.createAccount({ name: 'Customer Co', creditsUsd: '5' });
    const { page, problems } = await openPage(browser, `${gw.origin}/dashboard/`);
    await signIn(page, admin.key);
    await visit(page, 'All keys', 'table[aria-label="All keys"]');
    await page.getByLabel('Account id').fill(customer.id);
    await page.getByLabel('Name').fill('customer admin');
    await page.getByLabel('Kind').selectOption('management');
    assert.equal(await page.getByLabel('Credit limit (USD, optional)').count(), 0, 'a management key has no credit limit');
    await page.getByRole('button', { name: 'Create key' }).click();
    const notice = page.getByTestId('new-key');
    await notice.filter({ hasText: 'Management key' }).waitFor();
    await notice.getByRole('button', { name: 'Copy' }).waitFor();
    const key = (await page.getByTestId('new-key-value').textContent())!;
    await page.locator('table[aria-label="All keys"] tbody tr', { hasText: 'customer admin' }).filter({ hasText: 'management' }).waitFor();
    await screenshots(page, 'admin-keys-management');
    problems.assertNone('the All keys page');

    const listed = await fetch(`${gw.origin}/api/v1/keys`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(listed.status, 200, 'the new key is a management key of the account');
    const record = (await gw.services.stores.accounts.listKeys(customer.id)).find((k) => k.name === 'customer admin')!;
    assert.equal(record.isManagement, true);
    const audit = await fetch(`${gw.origin}/api/v1/admin/audit?target=${record.hash}`, {
      headers: { authorization: `Bearer ${admin.key}` },
    });
    const entries = ((await audit.json()) as { data: unknown }).data as Array<{ action: string; details: { kind: string } }>;
    assert.deepEqual(
      entries.map((e) => [e.action, e.details.kind]),
      [['key.create', 'management']],
    );
    await page.context().close();
  });
});
