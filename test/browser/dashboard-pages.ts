import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call, createAdminKey, createExpiredKey } from '../support/admin-client.ts';
import { SIM_ONLY, type TestGateway } from '../support/test-gateway.ts';
import { noneLoading, type DashboardPage } from './dashboard-page-list.ts';

// What the page list (dashboard-page-list.ts) is shown with: the gateway's rows as wide as
// real ones, a page opened and waited for, and a page's screenshot as WebP.

export * from './dashboard-page-list.ts';

/** The gateway's config for these pages: the sim, and webhooks allowed to a private address (the seeded one). */
export const PAGES_YAML = `${SIM_ONLY}webhooks: { allow_private_addresses: true }\n`;

/** Opens a page at a width and waits until its heading shows and nothing is loading. */
export async function showPage(page: Page, origin: string, p: DashboardPage, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.goto(`${origin}/dashboard/${p.route}`);
  await page.getByRole('heading', { level: 1, name: p.title, exact: true }).waitFor();
  await page.waitForFunction(noneLoading);
}

/**
 * Rows as wide as real ones on every page: long names, an app title, an expired key, a limit,
 * audit details, a member, a webhook. Returns a management key of the test account and an
 * admin key.
 */
export async function seedPages(gw: TestGateway): Promise<{ management: string; admin: string }> {
  const admin = await createAdminKey(gw, 'layout operator');
  const management = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dashboard', management: true })).key;
  await createExpiredKey(gw, gw.accountId, 'an expired key with a long descriptive name', new Date(Date.now() - 3_600_000).toISOString());
  await gw.services.accountService.createKey({
    accountId: gw.accountId,
    name: 'production backend service key',
    limitUsd: '25',
    limitReset: 'daily',
  });
  const models = await call('GET', `${gw.baseUrl}/models`, gw.key);
  const model = (models.json.data as { id: string; kind: string }[]).find((m) => m.kind === 'chat')?.id;
  assert.ok(model !== undefined, 'the catalog has a chat model');
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-title': 'A fairly long application title' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: `hello ${i}` }] }),
    });
    assert.equal(res.status, 200);
  }
  const acct = await call('POST', `${gw.origin}/api/v1/admin/accounts`, admin.key, {
    name: 'Northwind Traders International',
    type: 'user',
  });
  assert.equal(acct.status, 201, JSON.stringify(acct.json));
  const grant = await call('POST', `${gw.origin}/api/v1/admin/accounts/${acct.json.data.id}/credits`, admin.key, {
    kind: 'grant',
    amount: '125.50',
    reason: 'a welcome grant for the pilot, agreed with their finance team on the call',
  });
  assert.equal(grant.status, 201, JSON.stringify(grant.json));
  const member = await call('POST', `${gw.origin}/api/v1/members`, management, {
    email: 'priya.raman@northwind.example',
    name: 'Priya Raman',
    role: 'admin',
  });
  assert.equal(member.status, 201, JSON.stringify(member.json));
  // No event of these fires here: the webhook is listed, nothing is sent to it.
  const hook = await call('POST', `${gw.origin}/api/v1/webhooks`, management, {
    url: 'http://hooks.internal.example:8080/switchyard/events',
    events: ['budget.threshold', 'balance.low'],
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.json));
  await gw.flush();
  return { management, admin: admin.key };
}

/** Quality of the WebP screenshots (0–100): small files, text still sharp enough to read. */
const WEBP_QUALITY = 55;

/**
 * The whole page (its full height at the viewport's width) as WebP, through Chromium's own
 * capture (playwright writes PNG or JPEG only; WebP is about half JPEG's size for these pages).
 */
export async function webpScreenshot(page: Page): Promise<Buffer> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const metrics = await cdp.send('Page.getLayoutMetrics');
    const width = metrics.cssLayoutViewport.clientWidth;
    const height = Math.ceil(metrics.cssContentSize.height);
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'webp',
      quality: WEBP_QUALITY,
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width, height, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  } finally {
    await cdp.detach();
  }
}
