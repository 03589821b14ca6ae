import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET/PATCH /api/v1/account: a management key names its account and sets its default model
// (validated against the catalog); an API key cannot.

describe('account settings API', () => {
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    gw = await startTestGateway();
    auth = {
      authorization: `Bearer ${(await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key}`,
    };
  });
  after(() => gw.close());

  const patch = (body: unknown, headers = auth) =>
    fetch(`${gw.origin}/api/v1/account`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('renames the account and sets a catalog model as its default', async () => {
    const res = await patch({ name: 'Renamed', default_model: 'switchyard/sim-pro' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { data: { name: string; default_model: string } };
    assert.equal(body.data.name, 'Renamed');
    assert.equal(body.data.default_model, 'switchyard/sim-pro');
    const read = (await (await fetch(`${gw.origin}/api/v1/account`, { headers: auth })).json()) as {
      data: { name: string; balance_usd: string };
    };
    assert.equal(read.data.name, 'Renamed');
    assert.equal(read.data.balance_usd, '100');
  });

  test('a model not in the catalog, or an unknown field, is a 400 naming it', async () => {
    const bad = await patch({ default_model: 'nobody/nothing' });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { param: string } }).error.param, 'default_model');
    const unknown = await patch({ tier: 'tier9' });
    assert.equal(unknown.status, 400);
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.tier, 'tier2');
  });

  test('an API key is refused (403)', async () => {
    assert.equal((await patch({ name: 'x' }, { authorization: `Bearer ${gw.key}` })).status, 403);
  });
});

describe('activity rows for the dashboard', () => {
  test('each row counts the provider attempts of its request', async () => {
    const gw = await startTestGateway();
    try {
      const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
      const call = await fetch(`${gw.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'switchyard/sim-pro', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(call.status, 200);
      await gw.flush();
      const list = (await (await fetch(`${gw.origin}/api/v1/activity`, { headers: { authorization: `Bearer ${mgmt}` } })).json()) as {
        data: { attempt_count: number }[];
      };
      assert.equal(list.data.length, 1);
      assert.equal(list.data[0]!.attempt_count, 1);
    } finally {
      await gw.close();
    }
  });
});
