import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { generationRecord } from '../support/public-api.ts';

const TIERS = `
tiers:
  tier2:
    requests_per_minute: 3
    account_requests_per_minute: 5
    model_limits:
      switchyard/sim-pro: { requests_per_minute: 1 }
  free:
    requests_per_minute: 100
    requests_per_day: 2
    models: ["switchyard/sim-fast"]
`;

const ask = (model = 'switchyard/sim-fast') => ({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('tier rate limits', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: SIM_ONLY + TIERS });
  });
  after(() => gw.close());

  test('answers carry X-RateLimit-*; a burst beyond the per-minute limit gets 429 with Retry-After', async () => {
    const { key, record } = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'burst' });
    const auth = { authorization: `Bearer ${key}` };
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('x-ratelimit-limit'), '3');
      remaining.push(r.headers.get('x-ratelimit-remaining')!);
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      assert.ok(reset > Date.now() / 1000 && reset < Date.now() / 1000 + 61, `reset ${reset} is a near-future unix time`);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    const limited = await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(limited.status, 429);
    await gw.flush();
    const counted = await gw.services.stores.refusals.list({ keyHash: record.hash }, null, 10);
    assert.deepEqual(
      counted.map((c) => [c.reason, c.count]),
      [['rate_limited', 1]],
      'a refused request is counted (and leaves no generation record)',
    );
    assert.equal(limited.json.error.type, 'rate_limit_error');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 20, `retry-after ${retryAfter}`);
    // Streams are limited the same way, before anything is streamed.
    const stream = await postJson(`${gw.baseUrl}/chat/completions`, { ...ask(), stream: true }, auth);
    assert.equal(stream.status, 429);
  });

  test('limits apply per key and per model, with per-model overrides from the tier', async () => {
    const a = await gw.services.accountService.createAccount({ name: 'per-model', tier: 'tier2', creditsUsd: '5' });
    const { key } = await gw.services.accountService.createKey({ accountId: a.id });
    const auth = { authorization: `Bearer ${key}` };
    const pro1 = await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-pro'), auth);
    assert.equal(pro1.status, 200);
    assert.equal(pro1.headers.get('x-ratelimit-limit'), '1');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-pro'), auth)).status, 429);
    // Another model still has its own room.
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-fast'), auth)).status, 200);
  });

  test('more keys do not raise an account past its account-wide limit', async () => {
    const a = await gw.services.accountService.createAccount({ name: 'many keys', tier: 'tier2', creditsUsd: '5' });
    const keys = await Promise.all([1, 2, 3].map(async () => (await gw.services.accountService.createKey({ accountId: a.id })).key));
    const statuses: number[] = [];
    for (const key of keys) {
      for (let i = 0; i < 2; i++)
        statuses.push((await postJson(`${gw.baseUrl}/chat/completions`, ask(), { authorization: `Bearer ${key}` })).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });

  test("the free tier's daily cap and restricted models", async () => {
    const a = await gw.services.accountService.createAccount({ name: 'free one', tier: 'free', creditsUsd: '1' });
    const { key } = await gw.services.accountService.createKey({ accountId: a.id });
    const auth = { authorization: `Bearer ${key}` };
    const restricted = await postJson(`${gw.baseUrl}/chat/completions`, ask('switchyard/sim-pro'), auth);
    assert.equal(restricted.status, 400);
    assert.equal(restricted.json.error.code, 'model_not_found');
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth)).status, 200);
    assert.equal((await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth)).status, 200);
    const capped = await postJson(`${gw.baseUrl}/chat/completions`, ask(), auth);
    assert.equal(capped.status, 429);
    assert.match(capped.json.error.message, /per day/);
    const tomorrow = Math.ceil(Date.now() / 86_400_000) * 86_400;
    assert.equal(Number(capped.headers.get('x-ratelimit-reset')), tomorrow);
  });

  test("a tier's model restriction also holds for fallback models", async () => {
    const a = await gw.services.accountService.createAccount({ name: 'free two', tier: 'free', creditsUsd: '1' });
    const { key } = await gw.services.accountService.createKey({ accountId: a.id });
    const auth = { authorization: `Bearer ${key}` };
    // A restricted primary is skipped for an allowed fallback...
    const skipped = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', models: ['switchyard/sim-fast'], messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(skipped.status, 200, skipped.text);
    assert.equal(skipped.json.model, 'switchyard/sim-fast');
    // ...and a restricted fallback is never reached when the allowed primary fails.
    const failed = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', models: ['switchyard/sim-pro'], messages: [{ role: 'user', content: 'fail please [sim:error]' }] },
      auth,
    );
    assert.equal(failed.status, 502, failed.text);
    await gw.flush();
    const record = await generationRecord(gw.origin, key, failed.headers.get('x-generation-id')!);
    assert.ok(record.attempts.length >= 1);
    assert.ok(
      record.attempts.every((x: any) => x.model === 'switchyard/sim-fast'),
      JSON.stringify(record.attempts),
    );
  });

  test('an enterprise-style per-account override raises the limit for that account only', async () => {
    const a = await gw.services.accountService.createAccount({ name: 'contract', tier: 'tier2', creditsUsd: '5' });
    await gw.services.accountService.updateAccount(a.id, { limitsOverride: { requests_per_minute: 5, account_requests_per_minute: null } });
    const { key } = await gw.services.accountService.createKey({ accountId: a.id });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await postJson(`${gw.baseUrl}/chat/completions`, ask(), { authorization: `Bearer ${key}` })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const status = await fetch(`${gw.baseUrl}/key`, { headers: { authorization: `Bearer ${key}` } });
    assert.deepEqual(((await status.json()) as any).data.rate_limit, { requests: 5, interval: '1m' });
  });
});
