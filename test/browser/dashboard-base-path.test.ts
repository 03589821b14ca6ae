import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { chromiumUnavailable, DESKTOP, launchChromium, screenshots, watchPage } from './browser-support.ts';

// Behind a reverse proxy that forwards /gw/... unchanged to a gateway with server.base_path
// /gw: the dashboard loads, its assets and API calls stay under /gw, and signing in works.

const skip = chromiumUnavailable();

/** A tiny reverse proxy on loopback: every request forwarded as is (path included). */
function startProxy(target: string): Promise<Server> {
  const { hostname, port } = new URL(target);
  const server = createServer((req, res) => {
    const upstream = request({ hostname, port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let gw: TestGateway;
let proxy: Server;
let browser: Browser;
before(async () => {
  if (skip !== undefined) return;
  gw = await startTestGateway({
    tweak: (c) => {
      c.server.basePath = '/gw';
    },
  });
  proxy = await startProxy(gw.origin);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise((r) => (proxy === undefined ? r(undefined) : proxy.close(r)));
  await gw?.close();
});

test('under a base path behind a reverse proxy the dashboard loads and signs in', { skip }, async () => {
  const mgmt = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'dashboard', management: true });
  const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const problems = watchPage(page);
  const urls: string[] = [];
  page.on('request', (r) => urls.push(new URL(r.url()).pathname));
  await page.goto(`${origin}/gw/`);
  await page.getByLabel('Key').fill(mgmt.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('balance').filter({ hasText: '$100.00' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/gw/dashboard/');
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.locator('table[aria-label="API keys"]').waitFor();
  assert.equal(new URL(page.url()).pathname, '/gw/dashboard/keys');
  await page.reload();
  await page.locator('table[aria-label="API keys"]').waitFor();
  await screenshots(page, 'base-path-keys');
  assert.deepEqual(
    urls.filter((u) => !u.startsWith('/gw/')),
    [],
    'every request stays under /gw',
  );
  problems.assertNone('the dashboard under /gw');
  await context.close();
});
