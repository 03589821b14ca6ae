import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { postLargeBody } from '../support/raw-http.ts';
import { generationRecord } from '../support/public-api.ts';

// Gemini's API goes through the one admission and settlement path of every model route: a
// spent balance and a spent key limit stop generateContent and streamGenerateContent
// exactly as they stop chat (402, before any model call, counted as refusals, no
// record), a tier rate limit is a 429 RESOURCE_EXHAUSTED with its retry delay, and what is
// served is charged exactly (the record's cost is what the key's usage moved by).

const TIERS = `
tiers:
  limited:
    requests_per_minute: 2
`;

const ask = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 50 } };
const HEAD = JSON.stringify(ask);

describe('Gemini API: credits, key limits and rate limits as on chat', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: SIM_ONLY + TIERS });
  });
  after(() => gw.close());

  const path = (method: string) => `${gw.origin}/v1beta/models/switchyard/sim-pro:${method}`;

  async function keyOf(
    credits: string,
    opts: { tier?: string; limitUsd?: string } = {},
  ): Promise<{ key: string; hash: string; accountId: string }> {
    const svc = gw.services.accountService;
    const account = await svc.createAccount({ name: `gemini ${credits}`, type: 'user', tier: opts.tier ?? 'tier2', creditsUsd: credits });
    const created = await svc.createKey({ accountId: account.id, ...(opts.limitUsd === undefined ? {} : { limitUsd: opts.limitUsd }) });
    return { key: created.key, hash: created.record.hash, accountId: account.id };
  }

  test('a zero or negative balance: 402 RESOURCE_EXHAUSTED on every generating method, chat alike; counting tokens is still free', async () => {
    const broke = await keyOf('0');
    const h = { 'x-goog-api-key': broke.key };
    for (const method of ['generateContent', 'streamGenerateContent?alt=sse', 'streamGenerateContent']) {
      const res = await postJson(path(method), ask, h);
      assert.equal(res.status, 402, `${method}: ${res.text}`);
      assert.equal(res.json.error.code, 402);
      assert.equal(res.json.error.status, 'RESOURCE_EXHAUSTED');
      assert.equal(res.json.error.details[0].reason, 'INSUFFICIENT_QUOTA');
    }
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${broke.key}` },
    );
    assert.equal(chat.status, 402, 'chat refuses alike');
    const counted = await postJson(path('countTokens'), ask, h);
    assert.equal(counted.status, 200, counted.text);
    assert.ok(counted.json.totalTokens > 0);
    await gw.flush();
    const refusals = await gw.services.stores.refusals.list({ keyHash: broke.hash }, null, 10);
    assert.deepEqual(
      refusals.map((c) => [c.reason, c.count]),
      [['insufficient_quota', 4]],
      'counted like chat, no record',
    );

    const overdrawn = await keyOf('1');
    await gw.services.accountService.adjustCredits(overdrawn.accountId, '-3', 'test: below zero');
    // Refused from the headers, while the body is still arriving.
    const large = await postLargeBody(path('generateContent'), { 'x-goog-api-key': overdrawn.key }, HEAD, 8 * 1024 * 1024);
    assert.equal(large.status, 402, JSON.stringify(large.json));
    assert.equal(large.json.error.status, 'RESOURCE_EXHAUSTED');
    assert.ok(large.sentWhenAnswered < large.total, `answered after ${large.sentWhenAnswered} of ${large.total} bytes`);
  });

  test('a key that has used up its own credit limit gets 402, its usage within the limit; each answer charged exactly', async () => {
    const { key } = await keyOf('100', { limitUsd: '0.001' });
    const h = { 'x-goog-api-key': key };
    let status = 200;
    let served = 0;
    let charged = 0;
    for (let i = 0; i < 200 && status === 200; i++) {
      const stream = i % 2 === 1;
      const res = await postJson(path(stream ? 'streamGenerateContent?alt=sse' : 'generateContent'), ask, h);
      status = res.status;
      if (status !== 200) {
        assert.equal(res.json.error.status, 'RESOURCE_EXHAUSTED', res.text);
        break;
      }
      served++;
      await gw.flush();
      const record = await generationRecord(gw.origin, key, res.headers.get('x-generation-id')!);
      assert.equal(record.streamed, stream);
      charged += record.total_cost;
    }
    assert.equal(status, 402);
    assert.ok(served > 0);
    const own = (await (await fetch(`${gw.baseUrl}/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: { usage: number; limit: number };
    };
    assert.equal(own.data.limit, 0.001);
    assert.ok(own.data.usage > 0 && own.data.usage <= own.data.limit, `usage ${own.data.usage} stays within the limit`);
    assert.ok(Math.abs(own.data.usage - charged) < 1e-12, `the key's usage ${own.data.usage} is the records' costs ${charged}`);
  });

  test('a tier rate limit: 429 RESOURCE_EXHAUSTED with Retry-After and a RetryInfo detail', async () => {
    const { key } = await keyOf('5', { tier: 'limited' });
    const h = { 'x-goog-api-key': key };
    for (let i = 0; i < 2; i++) assert.equal((await postJson(path('generateContent'), ask, h)).status, 200);
    const limited = await postJson(path('streamGenerateContent?alt=sse'), ask, h);
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.json.error.status, 'RESOURCE_EXHAUSTED');
    const retryAfter = limited.headers.get('retry-after');
    assert.ok(retryAfter !== null && Number(retryAfter) >= 1);
    assert.deepEqual(limited.json.error.details[1], { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
  });
});
