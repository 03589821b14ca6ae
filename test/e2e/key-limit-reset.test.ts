import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';

// A key's credit limit with a reset period (OpenRouter's `limit_reset`): the limit caps the
// usage of each UTC day / week (from Monday) / month, enforced by the credit holds and
// reported by the APIs. The gateway's clock is injected and moved across the boundary.

const chat = { model: 'switchyard/sim-pro', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
// Wednesday 7 January 2026, 12:00 UTC.
const WEDNESDAY_NOON = Date.UTC(2026, 0, 7, 12);
const DAY_MS = 86_400_000;

async function call(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(url, init);
  return { status: res.status, json: await res.json() };
}

describe('a key limit that resets daily or weekly', () => {
  let gw: TestGateway;
  let mgmt: string;
  let now = WEDNESDAY_NOON;
  before(async () => {
    gw = await startTestGateway({ credits: '20', now: () => now });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'admin', management: true })).key;
  });
  after(() => gw.close());

  /** Sends requests until the key is refused (at most 100); returns how many succeeded and the refusal. */
  async function spendUntilRefused(key: string): Promise<{ ok: number; refused: { status: number; json: any } }> {
    for (let ok = 0; ok < 100; ok++) {
      const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
      if (res.status !== 200) return { ok, refused: res };
    }
    throw new Error('the key was never refused');
  }

  test('a daily $0.0001 limit is refused with 402 key_limit once spent, and admitted again at 00:00 UTC', async () => {
    const keys = `${gw.origin}/api/v1/keys`;
    const created = await call('POST', keys, mgmt, { name: 'daily', limit: '0.0001', limit_reset: 'daily' });
    assert.equal(created.status, 201);
    assert.equal(created.json.data.limit_reset, 'daily');
    assert.equal(created.json.data.limit_remaining, 0.0001);
    const { hash } = created.json.data;
    const key = created.json.key as string;

    const spent = await spendUntilRefused(key);
    assert.ok(spent.ok >= 1, 'some requests fit in the limit');
    assert.equal(spent.refused.status, 402);
    assert.equal(spent.refused.json.error.metadata.reason, 'key_limit');
    await gw.flush();
    const today = (await call('GET', `${keys}/${hash}`, mgmt)).json.data;
    assert.ok(today.usage > 0 && today.usage <= 0.0001, `usage ${today.usage} within the limit`);
    assert.ok(today.limit_remaining < 0.0001);
    assert.equal((await call('GET', `${gw.baseUrl}/key`, key)).json.data.limit_reset, 'daily');

    // Still Wednesday, one millisecond before the boundary: refused.
    now = WEDNESDAY_NOON + 12 * 3_600_000 - 1;
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 402);
    // Thursday 00:00 UTC: the limit is whole again (the snapshot of Wednesday is read afresh).
    now = WEDNESDAY_NOON + 12 * 3_600_000;
    const status = await call('GET', `${gw.baseUrl}/key`, key);
    assert.equal(status.json.data.limit_remaining, 0.0001, 'a new day, nothing spent in it yet');
    const again = await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` });
    assert.equal(again.status, 200);
    await gw.flush();
    const thursday = (await call('GET', `${keys}/${hash}`, mgmt)).json.data;
    assert.ok(
      thursday.limit_remaining > 0 && thursday.limit_remaining < 0.0001,
      `remaining ${thursday.limit_remaining}: one request of today`,
    );
    assert.ok(thursday.usage > today.usage, 'the whole usage still grows');
  });

  test('a weekly limit stays used up on Thursday and resets on Monday 00:00 UTC; PATCH sets and clears the reset', async () => {
    // The next week's Wednesday (the clock only moves forward: rate-limit windows follow it).
    now = WEDNESDAY_NOON + 7 * DAY_MS;
    const keys = `${gw.origin}/api/v1/keys`;
    const created = await call('POST', keys, mgmt, { name: 'weekly', limit: '0.0001' });
    assert.equal(created.json.data.limit_reset, null);
    const { hash } = created.json.data;
    const key = created.json.key as string;
    const patched = await call('PATCH', `${keys}/${hash}`, mgmt, { limit_reset: 'weekly' });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.data.limit_reset, 'weekly');

    const spent = await spendUntilRefused(key);
    assert.equal(spent.refused.status, 402, JSON.stringify(spent.refused.json));
    assert.equal(spent.refused.json.error.metadata.reason, 'key_limit');
    await gw.flush();
    now = WEDNESDAY_NOON + 8 * DAY_MS; // Thursday: same week
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 402);
    now = Date.UTC(2026, 0, 19) - 1; // Sunday, the last millisecond of the week
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 402);
    now = Date.UTC(2026, 0, 19); // Monday 19 January 2026, 00:00 UTC
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, chat, { authorization: `Bearer ${key}` })).status, 200);

    // Without a limit there is nothing to reset: refused, and removing the limit clears the reset.
    const bad = await call('POST', keys, mgmt, { name: 'x', limit_reset: 'daily' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.param ?? bad.json.error.metadata?.param ?? 'limit_reset', 'limit_reset');
    assert.equal((await call('PATCH', `${keys}/${hash}`, mgmt, { limit_reset: 'yearly' })).status, 400);
    const cleared = await call('PATCH', `${keys}/${hash}`, mgmt, { limit: null });
    assert.equal(cleared.json.data.limit_reset, null);
  });

  test('the admin API and the CLI set a limit reset', async () => {
    const admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, admin, {
      name: 'm',
      limit: '3',
      limit_reset: 'monthly',
    });
    assert.equal(made.status, 201);
    assert.equal(made.json.data.limit_reset, 'monthly');
    const changed = await call('PATCH', `${gw.origin}/api/v1/admin/keys/${made.json.data.hash}`, admin, { limit_reset: 'weekly' });
    assert.equal(changed.status, 200);
    assert.equal(changed.json.data.limit_reset, 'weekly');
    assert.equal(changed.json.data.disabled, false);
    const audit = (await call('GET', `${gw.origin}/api/v1/admin/audit?target=${made.json.data.hash}`, admin)).json.data;
    assert.deepEqual(audit.map((e: any) => e.action).sort(), ['key.create', 'key.limit']);

    const viaCli = runCliJson(
      gw.dir,
      'keys',
      'create',
      '--account',
      gw.accountId,
      '--name',
      'cli',
      '--limit',
      '2',
      '--limit-reset',
      'daily',
    );
    assert.equal(viaCli.limit_reset, 'daily');
    const updated = runCliJson(gw.dir, 'keys', 'update', viaCli.hash, '--limit-reset', 'monthly');
    assert.equal(updated.limit_reset, 'monthly');
    assert.equal(runCliJson(gw.dir, 'keys', 'update', viaCli.hash, '--limit', 'none').limit_reset, null);
    const refused = runCli(gw.dir, 'keys', 'create', '--account', gw.accountId, '--limit-reset', 'daily');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /--limit-reset needs --limit/);
  });
});
