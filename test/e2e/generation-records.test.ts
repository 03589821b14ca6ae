import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { generationRecord } from '../support/public-api.ts';

describe('generation records', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  test('every answer names its generation, and the record holds tokens, cost, timing and app headers', async () => {
    const headers = { authorization: `Bearer ${gw.key}`, 'http-referer': 'https://app.example', 'x-title': 'Example App' };
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'switchyard/sim-pro',
        user: 'end-user-7',
        messages: [{ role: 'user', content: 'tell me something' }],
      },
      headers,
    );
    assert.equal(res.status, 200);
    const id = res.headers.get('x-generation-id')!;
    assert.equal(id, res.json.id);
    const rec = await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.equal(rec.status, 200);
    const g = ((await rec.json()) as any).data;
    assert.equal(g.id, id);
    assert.equal(g.model, 'switchyard/sim-pro');
    assert.equal(g.provider_name, 'sim');
    assert.equal(g.tokens_prompt, res.json.usage.prompt_tokens);
    assert.equal(g.tokens_completion, res.json.usage.completion_tokens);
    assert.equal(g.total_cost, res.json.usage.cost);
    assert.ok(g.total_cost > 0);
    assert.equal(typeof g.cost_breakdown.prompt, 'string');
    assert.equal(g.finish_reason, 'stop');
    assert.equal(g.streamed, false);
    assert.equal(g.cancelled, false);
    assert.equal(g.http_referer, 'https://app.example');
    assert.equal(g.app_title, 'Example App');
    assert.equal(g.user, 'end-user-7');
    assert.equal(typeof g.latency, 'number');
    assert.equal(typeof g.time_to_first_token, 'number');
    assert.equal(g.attempts.length, 1);
    assert.equal(g.attempts[0].provider, 'sim');
  });

  test('streamed answers and reasoning tokens are recorded too', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'switchyard/sim-reasoner',
        stream: true,
        reasoning: { effort: 'low' },
        messages: [{ role: 'user', content: 'think' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    const id = res.headers.get('x-generation-id')!;
    const usage = (sseData(res.text).at(-2) as any).usage;
    await gw.flush();
    const g = await generationRecord(gw.origin, gw.key, id);
    assert.equal(g.streamed, true);
    assert.ok(g.native_tokens_reasoning > 0);
    assert.equal(g.native_tokens_reasoning, usage.completion_tokens_details.reasoning_tokens);
  });

  test('a record is visible only to keys of its account', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'x' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    const id = res.headers.get('x-generation-id')!;
    const sibling = (await gw.services.accountService.createKey({ accountId: gw.accountId })).key;
    assert.equal((await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${sibling}` } })).status, 200);
    const other = await gw.services.accountService.createAccount({ name: 'stranger', creditsUsd: '1' });
    const stranger = (await gw.services.accountService.createKey({ accountId: other.id })).key;
    assert.equal(
      (await fetch(`${gw.origin}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${stranger}` } })).status,
      404,
    );
    assert.equal((await fetch(`${gw.origin}/api/v1/generation`, { headers: { authorization: `Bearer ${gw.key}` } })).status, 400);
  });
});
