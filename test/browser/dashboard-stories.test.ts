import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { formatNanos } from '../../src/money/money.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call } from '../support/admin-client.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage, type PageProblems } from './browser-support.ts';

// The dashboard in a real headless Chromium against a real gateway with the sim provider.

const skip = chromiumUnavailable();

// Predicates run in the page, so each is whole in itself (its source is sent, not its
// closure). Given as functions, not strings: Playwright evaluates a string predicate again
// on every poll through eval, which the dashboard's CSP (no 'unsafe-eval') refuses once the
// first check has not held; a function is evaluated once.
interface PageDocument {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
}
function noneLoading(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return d.querySelectorAll('.loading').length === 0;
}
function overviewLoaded(): boolean {
  const d = (globalThis as unknown as { document: PageDocument }).document;
  return (
    d.querySelectorAll('.loading').length === 0 &&
    Array.from(d.querySelectorAll('.stat-value')).every((e) => (e.textContent ?? '').includes('$'))
  );
}

/** Exact decimal text as the dashboard shows a cost: trailing zeros dropped, at least 2 decimals. */
function asShown(exact: string): string {
  const [whole, frac = ''] = exact.split('.');
  return `${whole}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: DESKTOP });
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

async function visit(page: Page, problems: PageProblems, title: string, shot: string, ready: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.locator(ready).first().waitFor();
  await page.waitForFunction(noneLoading);
  await screenshots(page, shot);
  problems.assertNone(`the ${title} page`);
}

describe('dashboard in a browser', { skip }, () => {
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

  test('an account: sign in, create a key, use it with the openai client, its generation in Activity at its exact cost, disable it (401), sign out', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dashboard', management: true });
    const { page, problems } = await openPage(browser, `${gw.origin}/`);
    await page.getByLabel('Key').waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/');
    await screenshots(page, 'sign-in');
    problems.assertNone('the sign-in page');
    await signIn(page, mgmt.key);
    await page.getByTestId('balance').filter({ hasText: '$100.00' }).waitFor();
    problems.assertNone('signing in');

    // Create a key; it is shown once.
    await visit(page, problems, 'Keys', 'keys', 'table[aria-label="API keys"]');
    await page.getByLabel('Name').fill('story key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const newKey = (await page.getByTestId('new-key-value').textContent())!;
    assert.match(newKey, /^sk-sy-v1-/);
    await screenshots(page, 'keys-created');

    // Use it with the official openai client.
    const client = new OpenAI({ apiKey: newKey, baseURL: gw.baseUrl, maxRetries: 0 });
    const models = await client.models.list();
    // A priced chat model (the sim's embedding model is priced too, and listed first).
    const model = models.data.find((m) => {
      const record = m as unknown as { kind: string; pricing: { prompt: string } };
      return record.kind === 'chat' && Number(record.pricing.prompt) > 0;
    })!.id;
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello from the dashboard story' }],
    });
    await gw.flush();
    const record =
      (await gw.services.stores.generations.getRecord(completion.id)) ??
      (await gw.services.stores.generations.getRecord((completion as unknown as { id: string }).id));
    assert.ok(record !== undefined, `generation ${completion.id} recorded`);
    assert.ok(record.costNanos > 0n, 'the request cost something');
    const exact = formatNanos(record.costNanos);

    // The generation in Activity, at its exact cost.
    await visit(page, problems, 'Activity', 'activity', 'table[aria-label="Generations"] tbody tr');
    const costText = (await page.getByTestId('row-cost').first().textContent())!;
    assert.equal(costText.replaceAll(',', ''), `$${asShown(exact)}`);
    // Filter by the key (chosen by name): the row stays; by status=error: no rows.
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'story key' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('table[aria-label="Generations"] tbody tr', { hasText: 'story key' }).waitFor();
    await page.getByLabel('Status').selectOption('error');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.empty').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('table[aria-label="Generations"] tbody tr').first().click();
    // The record as OpenRouter shows one: tokens, the cost item by item, the provider attempts, timings.
    const dialog = page.locator('dialog.record');
    await dialog.getByRole('region', { name: 'Tokens' }).waitFor();
    assert.match((await dialog.locator('h2').textContent())!, new RegExp(record.id));
    const tokens = (await dialog.getByRole('region', { name: 'Tokens' }).textContent())!;
    assert.ok(tokens.includes(`Prompt${record.tokensPrompt.toLocaleString('en-US')}`), tokens);
    assert.equal((await dialog.getByTestId('generation-total').textContent())!.replaceAll(',', ''), `$${asShown(exact)}`);
    assert.equal(await dialog.getByTestId('generation-status').textContent(), 'success');
    const attempts = dialog.getByTestId('attempt');
    assert.equal(await attempts.count(), record.attempts.length || 1);
    assert.match((await attempts.first().textContent())!, /HTTP 200/);
    assert.ok((await dialog.getByRole('region', { name: 'Timings' }).textContent())!.includes('Time to first token'));
    await dialog.locator('details summary').click();
    assert.match((await dialog.locator('pre.json').textContent())!, new RegExp(record.id));
    await screenshots(page, 'activity-record');
    await page.getByRole('button', { name: 'Close' }).click();

    // Disable the key: the client gets 401.
    await visit(page, problems, 'Keys', 'keys-list', 'table[aria-label="API keys"]');
    await page.getByRole('button', { name: 'Disable story key' }).click();
    await page.getByRole('button', { name: 'Enable story key' }).waitFor();
    await assert.rejects(
      client.chat.completions.create({ model, messages: [{ role: 'user', content: 'again' }] }),
      (err: { status?: number }) => err.status === 401,
    );

    for (const [title, shot, ready] of [
      ['Overview', 'overview', '.chart, .empty'],
      ['Credits', 'credits', 'table[aria-label="Ledger"]'],
      ['Models', 'models', 'table[aria-label="Models"]'],
    ] as const)
      await visit(page, problems, title, shot, ready);

    // Playground: a streamed answer through the gateway's own /v1/chat/completions, with a
    // short-lived, limited key of its own; a key of the account with the same name is not touched.
    const usersKey = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dashboard playground' });
    await visit(page, problems, 'Playground', 'playground-empty', 'form[aria-label="Message"]');
    await page.getByLabel('Model').selectOption(model);
    await page.locator('#pg-input').fill('Say hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    const answer = (await page.getByTestId('msg-assistant').textContent())!;
    assert.ok(answer.length > model.length, `an answer streamed: ${answer}`);
    await screenshots(page, 'playground');
    problems.assertNone('the Playground page');
    await gw.flush();
    const playgroundKeys = (await gw.services.stores.accounts.listKeys(gw.accountId)).filter((k) => k.isPlayground);
    assert.equal(playgroundKeys.length, 1);
    assert.ok(playgroundKeys[0]!.usageNanos > 0n, 'the playground request was charged to the account');
    assert.ok(playgroundKeys[0]!.limitNanos !== null && playgroundKeys[0]!.limitNanos <= 1_000_000_000n, 'a small limit');
    assert.ok(Date.parse(playgroundKeys[0]!.expiresAt!) - Date.now() <= 15 * 60_000, 'expiring within minutes');
    const untouched = (await gw.services.stores.accounts.getKey(usersKey.record.hash))!;
    assert.equal(untouched.isActive, true, "the account's own key named like the playground's is untouched");

    // Settings: a default model from the catalog, saved through the API.
    await visit(page, problems, 'Settings', 'settings', 'form[aria-label="Account settings"]');
    await page.getByLabel('Default model (used when a request names none)').selectOption(model);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.defaultModel, model);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Key').waitFor();
    problems.assertNone('signing out');
    await page.context().close();
  });

  test('the operator: sign in with the admin key, create an account, grant credits, see them in its ledger', async () => {
    const admin = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true });
    const { page, problems } = await openPage(browser, `${gw.origin}/dashboard/`);
    await signIn(page, admin.key);
    await page.locator('table[aria-label="Accounts"]').waitFor();
    await page.getByLabel('New account name').fill('Acme Robotics');
    await page.getByRole('button', { name: 'Create account' }).click();
    const row = page.locator('table[aria-label="Accounts"] tbody tr', { hasText: 'Acme Robotics' });
    await row.click();
    await page.getByLabel('Credits (USD, negative to adjust down)').fill('25');
    await page.getByLabel('Reason').fill('welcome credits');
    await page.getByRole('button', { name: 'Grant' }).click();
    await page
      .locator('section[aria-label="Account Acme Robotics"] table[aria-label="Ledger"] tbody tr', { hasText: 'welcome credits' })
      .waitFor();
    const amount = await page.locator('section[aria-label="Account Acme Robotics"] [data-testid="ledger-amount"]').first().textContent();
    assert.equal(amount, '$25.00');

    // The account's page edits its settings and lists its keys.
    const acme = page.locator('section[aria-label="Account Acme Robotics"]');
    const id = (await acme.locator('h2 code').textContent())!;
    assert.equal(
      (await call('POST', `${gw.origin}/api/v1/admin/accounts/${id}/keys`, admin.key, { name: 'acme ci', kind: 'api' })).status,
      201,
    );
    assert.equal(
      (
        await call('POST', `${gw.origin}/api/v1/admin/accounts/${id}/members`, admin.key, {
          email: 'ada@acme.test',
          name: 'Ada',
          role: 'admin',
        })
      ).status,
      201,
    );
    await acme.getByLabel('Tier').selectOption('enterprise');
    await acme.getByLabel('Requests per minute, per key').fill('50');
    await acme.getByLabel('Keep records (days)').fill('30');
    await acme.getByRole('button', { name: 'Save account' }).click();
    await acme.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = (await call('GET', `${gw.origin}/api/v1/admin/accounts/${id}`, admin.key)).json.data;
    assert.deepEqual(
      [saved.tier, saved.limits_override, saved.retention_days, saved.name],
      ['enterprise', { requests_per_minute: 50 }, 30, 'Acme Robotics'],
    );
    await acme.getByRole('button', { name: 'Close' }).click();
    await row.click();
    await page
      .locator('section[aria-label="Account Acme Robotics"] table[aria-label="Keys of the account"] tbody tr', { hasText: 'acme ci' })
      .waitFor();
    await page
      .locator('section[aria-label="Account Acme Robotics"] table[aria-label="Members of the account"] tbody tr', {
        hasText: 'ada@acme.test',
      })
      .filter({ hasText: 'admin' })
      .waitFor();
    await screenshots(page, 'admin-accounts');
    problems.assertNone('the Accounts page');
    for (const [title, shot, ready] of [
      ['All keys', 'admin-keys', 'table[aria-label="All keys"]'],
      ['Activity', 'admin-activity', 'table[aria-label="Generations"], .empty'],
      ['Health', 'admin-health', 'table[aria-label="Endpoint health"]'],
      ['Audit log', 'admin-audit', 'table[aria-label="Audit log"]'],
      ['Configuration', 'admin-config', 'section[aria-label="Configuration in force"]'],
      ['Models', 'admin-models', 'table[aria-label="Models"]'],
    ] as const)
      await visit(page, problems, title, shot, ready);

    // The audit log reads as sentences, the account named and linked.
    await visit(page, problems, 'Audit log', 'admin-audit', 'table[aria-label="Audit log"]');
    const sentences = page.getByTestId('audit-sentence');
    await sentences.filter({ hasText: 'created the account Acme Robotics' }).waitFor();
    await sentences.filter({ hasText: 'granted $25.00 of credits to Acme Robotics (welcome credits)' }).waitFor();
    assert.equal(await sentences.filter({ hasText: 'created the account' }).getByRole('link', { name: 'Acme Robotics' }).count(), 1);

    // The configuration in the file's own names, and Reload doing what SIGHUP does.
    await visit(page, problems, 'Configuration', 'admin-config', 'section[aria-label="Configuration in force"]');
    const generation = Number(await page.getByTestId('config-generation').textContent());
    assert.match((await page.getByTestId('config-yaml').textContent())!, /^sim: /m);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page
      .getByTestId('reload-outcome')
      .filter({ hasText: `Reloaded: generation ${generation + 1} in force` })
      .waitFor();
    await page
      .getByTestId('config-generation')
      .filter({ hasText: String(generation + 1) })
      .waitFor();
    await page.getByTestId('last-reload').filter({ hasText: 'accepted' }).waitFor();
    problems.assertNone('the Configuration page');
    await page.context().close();
  });

  test('a session that ends (its key disabled) returns the page to sign-in on the next call', async () => {
    const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'short-lived', management: true });
    const { page, problems } = await openPage(browser, `${gw.origin}/dashboard/`);
    await signIn(page, mgmt.key);
    // The overview's calls have all answered (so the next call is the Keys page's).
    await page.waitForFunction(overviewLoaded);
    problems.assertNone('signing in');
    await gw.services.accountService.revokeKey(mgmt.record.hash);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Key').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.context().close();
  });
});
