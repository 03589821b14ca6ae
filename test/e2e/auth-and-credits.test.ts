import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { createExpiredKey } from '../support/admin-client.ts';

const body = { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] };

describe('authentication and credits', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  const expect401 = async (headers: Record<string, string>, why: string) => {
    const res = await postJson(`${gw.baseUrl}/chat/completions`, body, headers);
    assert.equal(res.status, 401, why);
    assert.equal(res.json.error.type, 'authentication_error', why);
    assert.match(res.json.error.message, /authentication required/i, why);
  };

  test('missing, malformed and unknown keys get 401 authentication_error', async () => {
    await expect401({}, 'missing');
    await expect401({ authorization: 'Basic abc' }, 'wrong scheme');
    await expect401({ authorization: 'Bearer not-a-key' }, 'malformed');
    await expect401({ authorization: `Bearer sk-sy-v1-${'A'.repeat(43)}` }, 'unknown');
    const ok = await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${gw.key}` });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a revoked key, an expired key and a key of an inactive account get 401', async () => {
    const svc = gw.services.accountService;
    const revoked = await svc.createKey({ accountId: gw.accountId, name: 'to revoke' });
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${revoked.key}` })).status, 200);
    await svc.revokeKey(revoked.record.hash);
    await expect401({ authorization: `Bearer ${revoked.key}` }, 'revoked');

    const expired = await createExpiredKey(gw, gw.accountId, 'expired', new Date(Date.now() - 1000).toISOString());
    await expect401({ authorization: `Bearer ${expired.key}` }, 'expired');

    const other = await svc.createAccount({ name: 'dormant', creditsUsd: '5' });
    const k = await svc.createKey({ accountId: other.id });
    await gw.services.accountService.updateAccount(other.id, { isActive: false });
    await expect401({ authorization: `Bearer ${k.key}` }, 'inactive account');
  });

  test('keys are stored only as hashes', () => {
    const rows = gw.db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
    const dump = JSON.stringify(rows);
    assert.equal(dump.includes(gw.key), false);
    assert.equal(dump.includes(gw.key.slice(9, 30)), false);
  });

  test('a zero or negative balance gets 402 before any upstream call, free models included', async () => {
    const svc = gw.services.accountService;
    const broke = await svc.createAccount({ name: 'broke', creditsUsd: '0' });
    const { key, record: keyRecord } = await svc.createKey({ accountId: broke.id });
    // switchyard/sim-fast is free ($0 a token): the balance is checked all the same.
    const res = await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 402);
    assert.equal(res.json.error.type, 'insufficient_quota_error');
    // Refused before any provider was asked: counted, not recorded (store/sqlite/refusal-counts.ts).
    await gw.flush();
    const lookup = await fetch(`${gw.baseUrl}/generation?id=${res.headers.get('x-generation-id')}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(lookup.status, 404);
    const counted = await gw.services.stores.refusals.list({ keyHash: keyRecord.hash }, null, 10);
    assert.deepEqual(
      counted.map((c) => [c.reason, c.count]),
      [['insufficient_quota', 1]],
    );
    await svc.adjustCredits(broke.id, '-1', 'test: below zero');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` })).status, 402);
    await svc.addCredits(broke.id, '2');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}` })).status, 200);
  });

  test('a key that has used up its own credit limit gets 402', async () => {
    const svc = gw.services.accountService;
    const { key } = await svc.createKey({ accountId: gw.accountId, limitUsd: '0.01' });
    const pro = { ...body, model: 'switchyard/sim-pro', max_tokens: 50 };
    let status = 200;
    for (let i = 0; i < 200 && status === 200; i++) {
      status = (await postJson(`${gw.baseUrl}/chat/completions`, pro, { authorization: `Bearer ${key}` })).status;
    }
    assert.equal(status, 402);
    // The key's own view of itself (GET /api/v1/key): usage stays within the limit.
    const own = (await (await fetch(`${gw.baseUrl}/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: { usage: number; limit: number };
    };
    assert.equal(own.data.limit, 0.01);
    assert.ok(own.data.usage > 0 && own.data.usage <= own.data.limit, `usage ${own.data.usage} stays within the limit`);
  });

  test('when model is omitted the account default model is used, and without one it is a 400 naming model', async () => {
    const noModel = { messages: body.messages };
    const res = await postJson(`${gw.baseUrl}/chat/completions`, noModel, { authorization: `Bearer ${gw.key}` });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'missing_parameter');
    assert.match(res.json.error.message, /model/);
    await gw.services.accountService.updateAccount(gw.accountId, { defaultModel: 'switchyard/sim-fast' });
    const ok = await postJson(`${gw.baseUrl}/chat/completions`, noModel, { authorization: `Bearer ${gw.key}` });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.model, 'switchyard/sim-fast');
  });
});
