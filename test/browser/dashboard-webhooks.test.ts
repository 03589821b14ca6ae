import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { call } from '../support/admin-client.ts';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/signed-webhook-receiver.ts';
import { chromiumUnavailable, launchChromium, screenshots } from './browser-support.ts';
import { openPage, signedIn } from './signed-in.ts';

// The Webhooks page in Chromium (docs/webhooks.md): register a webhook to a real receiver on
// loopback (allowed by webhooks.allow_private_addresses), its secret shown once; an event is
// delivered after a 500 and a retry; the page shows the delivery and both attempts; Replay from
// the page sends the same event again, signed with that secret, as the receiver checks; then
// remove the webhook.

const skip = chromiumUnavailable();

describe('dashboard: webhooks', { skip }, () => {
  let gw: TestGateway;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let mgmt: string;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 20 }\n` });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
    receiver = await startWebhookReceiver((n) => (n === 1 ? 500 : 200));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await gw?.close();
  });

  test('add a webhook, see a delivery and its attempts, replay it: the receiver gets the same event, validly signed', async () => {
    const { page, problems, close } = await signedIn(browser, gw.origin, mgmt);
    await openPage(page, 'Webhooks');
    await page.getByText('Nothing here yet.').waitFor();

    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('URL').fill(receiver.url);
    // key.created and key.revoked are ticked at first; key.revoked is not wanted here.
    await form.getByRole('checkbox', { name: 'key.revoked' }).uncheck();
    await form.getByRole('checkbox', { name: 'member.added' }).check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret-value').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    await page.getByTestId('webhook-secret').getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('webhook-secret').waitFor({ state: 'detached' });
    const hooks = await call('GET', `${gw.origin}/api/v1/webhooks`, mgmt);
    assert.deepEqual(
      hooks.json.data.map((w: { url: string; events: string[] }) => [w.url, w.events]),
      [[receiver.url, ['key.created', 'member.added']]],
    );
    assert.ok(!JSON.stringify(hooks.json).includes(secret), 'the secret is not shown again');
    const hookId = hooks.json.data[0].id as string;

    // An event: a key created through the API.
    const key = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'hooked' });
    assert.equal(key.status, 201);
    // Answered 500, then retried (retry_base_ms: 20) and answered 200.
    await receiver.until(2);
    const first = JSON.parse(receiver.got[1]!.body) as { id: string; type: string };
    assert.equal(first.type, 'key.created');
    assert.equal(JSON.parse(receiver.got[0]!.body).id, first.id);

    await page.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click();
    const deliveries = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    const rows = deliveries.locator('table[aria-label="Deliveries"] tbody tr');
    // Pending until the gateway records the answer: the page asks again while one is pending.
    await rows.filter({ hasText: 'key.created' }).getByTestId('delivery-status').filter({ hasText: 'delivered' }).waitFor();
    await rows
      .first()
      .getByText(/#1 HTTP 500 · /)
      .waitFor();
    await rows
      .first()
      .getByText(/#2 HTTP 200 · /)
      .waitFor();
    const delivery = ((await call('GET', `${gw.origin}/api/v1/webhooks/${hookId}/deliveries`, mgmt)).json.data as Array<{ id: string }>)[0];
    assert.ok(delivery !== undefined);

    await deliveries.getByRole('button', { name: `Replay key.created ${delivery.id}` }).click();
    await deliveries
      .getByRole('status')
      .filter({ hasText: `Replayed key.created (event ${first.id})` })
      .waitFor();
    await receiver.until(3);
    const replayed = receiver.got[2]!;
    assert.equal(JSON.parse(replayed.body).id, first.id, 'a replay sends the same event');
    assert.ok(
      verifySignature(secret, replayed.headers['x-switchyard-signature'] as string, replayed.body),
      'signed with the secret the page showed',
    );
    assert.ok(!verifySignature('whsec_not-the-secret-at-all', replayed.headers['x-switchyard-signature'] as string, replayed.body));
    // The replay is a new delivery: two rows, both delivered, each with its attempt.
    await rows.nth(1).waitFor();
    await deliveries.getByTestId('delivery-status').filter({ hasText: 'pending' }).waitFor({ state: 'detached' });
    assert.deepEqual(await deliveries.getByTestId('delivery-status').allTextContents(), ['delivered', 'delivered']);
    await screenshots(page, 'dashboard-webhooks');
    problems.assertNone('webhooks page');

    // Remove it (confirmed): gone from the page and the API.
    page.once('dialog', (d) => {
      void d.accept();
    });
    await page.getByRole('button', { name: `Remove the webhook to ${receiver.url}` }).click();
    await page.getByText('Nothing here yet.').first().waitFor();
    assert.deepEqual((await call('GET', `${gw.origin}/api/v1/webhooks`, mgmt)).json.data, []);
    problems.assertNone('removing a webhook');
    await close();
  });
});
