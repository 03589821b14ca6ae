import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

describe('GET /v1/models and GET /v1/key', () => {
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    gw = await startTestGateway({ credits: '25' });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(() => gw.close());

  const MODEL_FIELDS = [
    'architecture',
    'capabilities',
    'context_length',
    'created',
    'description',
    'id',
    'kind',
    'name',
    'object',
    'owned_by',
    'pricing',
    'provider',
    'supported_parameters',
    'top_provider',
  ];

  test('models: every field of the model record, prices as strings', async () => {
    for (const prefix of ['/v1', '/api/v1']) {
      const res = await fetch(`${gw.origin}${prefix}/models`, { headers: auth });
      assert.equal(res.status, 200);
      const { object, data } = (await res.json()) as { object: string; data: any[] };
      assert.equal(object, 'list', "OpenAI's list object");
      assert.ok(data.length >= 2);
      for (const m of data) {
        assert.match(m.id, /^[^/]+\/[^/]+$/);
        // OpenAI's model object: what OpenAI-compatible UIs read.
        assert.equal(m.object, 'model');
        assert.equal(m.owned_by, m.id.split('/')[0], `${m.id}.owned_by is its author`);
        assert.equal(m.owned_by, m.provider);
        for (const f of ['name', 'provider', 'description']) assert.equal(typeof m[f], 'string', `${m.id}.${f}`);
        assert.equal(typeof m.context_length, 'number');
        assert.equal(typeof m.pricing.prompt, 'string');
        assert.equal(typeof m.pricing.completion, 'string');
        assert.ok(Array.isArray(m.capabilities) && m.capabilities.includes('text'));
        for (const price of Object.values(m.pricing)) assert.match(String(price), /^\d+(\.\d+)?$/, `${m.id} prices as decimal strings`);
        assert.ok(Number.isInteger(m.created), `${m.id}.created`);
        assert.equal(typeof m.architecture.modality, 'string');
        assert.ok(Array.isArray(m.architecture.input_modalities) && Array.isArray(m.architecture.output_modalities));
        assert.equal(m.top_provider.context_length, m.context_length);
        assert.ok(m.top_provider.max_completion_tokens === null || Number.isInteger(m.top_provider.max_completion_tokens));
        assert.ok(Array.isArray(m.supported_parameters) && m.supported_parameters.every((x: unknown) => typeof x === 'string'));
        assert.deepEqual(Object.keys(m).sort(), MODEL_FIELDS, `${m.id} has every field and no other`);
      }
    }
  });

  test('models is public by default: no key, or a wrong one, still lists (as OpenRouter); the key route still needs a valid key', async () => {
    for (const headers of [{}, { authorization: 'Bearer sk-sy-v1-wrong' }, { 'x-api-key': 'sk-sy-v1-wrong' }]) {
      const res = await fetch(`${gw.baseUrl}/models`, { headers });
      assert.equal(res.status, 200);
      assert.ok(((await res.json()) as { data: unknown[] }).data.length >= 2);
      assert.equal((await fetch(`${gw.baseUrl}/key`, { headers })).status, 401);
    }
  });

  test('models and key take the key as x-api-key too (Anthropic SDK 0.x, Claude Code with ANTHROPIC_API_KEY)', async () => {
    for (const prefix of ['/v1', '/api/v1']) {
      for (const path of ['models', 'key']) {
        const res = await fetch(`${gw.origin}${prefix}/${path}`, { headers: { 'x-api-key': gw.key } });
        assert.equal(res.status, 200, `${prefix}/${path}`);
      }
    }
    const models = (await (await fetch(`${gw.baseUrl}/models`, { headers: { 'x-api-key': gw.key } })).json()) as { data: any[] };
    assert.ok(models.data.length >= 2);
    const key = (await (await fetch(`${gw.baseUrl}/key`, { headers: { 'x-api-key': gw.key } })).json()) as { data: any };
    assert.equal(key.data.name, 'test key');
  });

  test('key: Authorization wins over x-api-key; a wrong x-api-key alone is a 401', async () => {
    for (const path of ['key']) {
      const both = await fetch(`${gw.baseUrl}/${path}`, { headers: { authorization: 'Bearer sk-sy-v1-wrong', 'x-api-key': gw.key } });
      assert.equal(both.status, 401, `${path}: the bearer token is the key checked`);
      const bearerGood = await fetch(`${gw.baseUrl}/${path}`, { headers: { ...auth, 'x-api-key': 'sk-sy-v1-wrong' } });
      assert.equal(bearerGood.status, 200, path);
      const wrong = await fetch(`${gw.baseUrl}/${path}`, { headers: { 'x-api-key': 'sk-sy-v1-wrong' } });
      assert.equal(wrong.status, 401, path);
    }
  });

  test('models through the Anthropic SDK 0.x, which sends x-api-key', async () => {
    const { default: Anthropic } = await import('anthropic-sdk-0x');
    const client = new Anthropic({ baseURL: gw.origin, apiKey: gw.key, maxRetries: 0 });
    const page = await client.models.list();
    assert.ok(page.data.length >= 2);
  });

  test('key: the status record, and with details=true balance, account type and usage stats', async () => {
    const res = await fetch(`${gw.baseUrl}/key`, { headers: auth });
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as { data: any };
    assert.equal(data.usage, 0);
    assert.equal(data.limit, null);
    assert.equal(data.name, 'test key');
    assert.match(data.label, /^sk-sy-v1-...\.\.\..{3}$/);
    assert.equal(data.tier, 'tier2');
    assert.equal(data.tier_name, 'Tier 2');
    assert.equal(data.is_active, true);
    assert.equal(data.is_org_key, false);
    assert.equal(typeof data.created_at, 'string');
    assert.equal('balance' in data, false);

    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-pro', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(chat.status, 200);
    await gw.flush();
    const detailed = await fetch(`${gw.origin}/api/v1/key?details=true`, { headers: auth });
    const d = ((await detailed.json()) as { data: any }).data;
    assert.equal(d.account_type, 'user');
    assert.ok(d.usage > 0);
    assert.equal(d.usage, chat.json.usage.cost);
    assert.equal(d.balance, Number((25 - d.usage).toFixed(9)));
    assert.deepEqual(d.usage_stats.last_7_days, { cost: d.usage, requests: 1 });
    assert.deepEqual(d.usage_stats.last_30_days, { cost: d.usage, requests: 1 });
    assert.equal(typeof d.last_used, 'string');
  });

  test('org keys name their organization', async () => {
    const svc = gw.services.accountService;
    const org = await svc.createAccount({ name: 'Acme Inc', type: 'organization', creditsUsd: '1' });
    const { key } = await svc.createKey({ accountId: org.id });
    const { data } = (await (await fetch(`${gw.baseUrl}/key?details=true`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      data: any;
    };
    assert.equal(data.is_org_key, true);
    assert.equal(data.org_id, org.id);
    assert.equal(data.org_name, 'Acme Inc');
    assert.equal(data.account_type, 'organization');
  });

  test('unknown routes are a 404 in the error record shape', async () => {
    const res = await fetch(`${gw.baseUrl}/nope`, { headers: auth });
    assert.equal(res.status, 404);
    const b = (await res.json()) as any;
    assert.equal(b.error.type, 'not_found_error');
  });
});
