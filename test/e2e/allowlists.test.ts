import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCliJson } from '../support/run-cli.ts';
import { postJson, startTestGateway, SIM_ONLY, type TestGateway } from '../support/test-gateway.ts';
import { startRoutingRig, user, type RoutingRig } from './routing-fixture.ts';

// What a key may reach (issue 24 §3, docs/governance.md#allowlists): model ids and globs,
// providers and a maximum price, on the account and on the key, intersected. Outside the
// allowlist a model is exactly an unknown one, in every dialect and list; routing and
// fallbacks use only the endpoints the allowlist keeps.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** An error with the model's name taken out: what must be the same for an unknown and a forbidden model. */
function shape(res: { status: number; text: string }, name: string): string {
  return `${res.status} ${res.text.split(name).join('<model>')}`;
}

describe('allowlists on accounts and keys (routing rig: cheap, mid, dear)', () => {
  let rig: RoutingRig;
  let mgmt: string;
  let admin: string;
  before(async () => {
    rig = await startRoutingRig();
    mgmt = (await rig.gw.services.accountService.createKey({ accountId: rig.gw.accountId, name: 'manager', management: true })).key;
    admin = (await createAdminKey(rig.gw)).key;
  });
  after(() => rig.close());

  const keys = () => `${rig.gw.origin}/api/v1/keys`;
  const newKey = async (body: Record<string, unknown>): Promise<{ key: string; hash: string; data: any }> => {
    const res = await call('POST', keys(), mgmt, { name: 'scoped', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return { key: res.json.key, hash: res.json.data.hash, data: res.json.data };
  };
  const chat = (key: string, body: Record<string, unknown>) =>
    postJson(`${rig.gw.baseUrl}/chat/completions`, { messages: user('hi'), ...body }, bearer(key));

  test("a model outside the key's list is refused exactly as an unknown model, in chat, messages and responses", async () => {
    const k = await newKey({ allowed_models: ['acme/multi'] });
    assert.deepEqual(k.data.allowed_models, ['acme/multi']);
    assert.equal((await chat(k.key, { model: 'acme/multi' })).status, 200);

    const forbidden = await chat(k.key, { model: 'acme/other' });
    const unknown = await chat(k.key, { model: 'acme/no-such-model' });
    assert.equal(forbidden.status, 400);
    assert.equal(forbidden.json.error.code, 'model_not_found');
    assert.equal(shape(forbidden, 'acme/other'), shape(unknown, 'acme/no-such-model'));

    const messages = (model: string) =>
      postJson(
        `${rig.gw.baseUrl}/messages`,
        { model, max_tokens: 10, messages: user('hi') },
        { 'x-api-key': k.key, 'anthropic-version': '2023-06-01' },
      );
    const mForbidden = await messages('acme/other');
    assert.equal(shape(mForbidden, 'acme/other'), shape(await messages('acme/no-such-model'), 'acme/no-such-model'));
    assert.equal(mForbidden.json.type, 'error');

    const responses = (model: string) => postJson(`${rig.gw.baseUrl}/responses`, { model, input: 'hi' }, bearer(k.key));
    assert.equal(shape(await responses('acme/other'), 'acme/other'), shape(await responses('acme/no-such-model'), 'acme/no-such-model'));

    // count_tokens (no upstream call) knows no more.
    const count = (model: string) =>
      postJson(`${rig.gw.baseUrl}/messages/count_tokens`, { model, messages: user('hi') }, { 'x-api-key': k.key });
    assert.equal(shape(await count('acme/other'), 'acme/other'), shape(await count('acme/no-such-model'), 'acme/no-such-model'));

    // A fallback outside the list is an unknown fallback: refused, never called.
    rig.reset();
    const fallback = await chat(k.key, { model: 'acme/multi', models: ['acme/multi', 'acme/other'] });
    assert.equal(fallback.status, 400);
    assert.equal(fallback.json.error.code, 'model_not_found');
    assert.deepEqual(rig.received(), []);
  });

  test("the model lists and a model's endpoints show a key only what it may use", async () => {
    const k = await newKey({ allowed_models: ['acme/m*', 'acme/backup'] });
    const list = async (key?: string) => {
      const res = await fetch(`${rig.gw.baseUrl}/models`, { headers: key === undefined ? {} : bearer(key) });
      return ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    };
    assert.deepEqual(await list(k.key), ['acme/backup', 'acme/multi']);
    assert.ok((await list()).includes('acme/other'), 'without a key, the public list is whole');
    assert.ok((await list('sk-sy-v1-not-a-real-key')).includes('acme/other'), 'a wrong key changes nothing');
    const one = async (model: string) => fetch(`${rig.gw.baseUrl}/models/${model}`, { headers: bearer(k.key) });
    assert.equal((await one('acme/multi')).status, 200);
    const hidden = await one('acme/other');
    const missing = await one('acme/no-such-model');
    assert.equal(hidden.status, missing.status);
    assert.equal((await hidden.text()).replace('acme/other', '<m>'), (await missing.text()).replace('acme/no-such-model', '<m>'));
    const filtered = await fetch(`${rig.gw.baseUrl}/models?output_modalities=text`, { headers: bearer(k.key) });
    assert.deepEqual(
      ((await filtered.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id),
      ['acme/backup', 'acme/multi'],
    );
    assert.equal((await fetch(`${rig.gw.baseUrl}/models/acme/other/endpoints`, { headers: bearer(k.key) })).status, 404);
  });

  test('allowed_providers and max_price keep routing (and its fallbacks) on the endpoints they allow', async () => {
    const k = await newKey({ allowed_providers: ['dear'] });
    rig.reset();
    assert.equal((await chat(k.key, { model: 'acme/multi' })).status, 200);
    assert.deepEqual(rig.received(), ['multi-dear']);
    // The endpoint listing names the allowed one alone.
    const endpoints = (await (await fetch(`${rig.gw.baseUrl}/models/acme/multi/endpoints`, { headers: bearer(k.key) })).json()) as any;
    assert.deepEqual(
      endpoints.data.endpoints.map((e: any) => e.provider_name),
      ['dear'],
    );
    // acme/other is served by mid alone: for this key, it does not exist.
    assert.equal((await chat(k.key, { model: 'acme/other' })).json.error.code, 'model_not_found');
    // The allowed endpoint fails: fallbacks stay on dear (acme/backup), never cheap or mid.
    rig.reset();
    rig.emus.dear.enqueue({ fault: 'status', status: 500 });
    const served = await chat(k.key, { model: 'acme/multi', models: ['acme/multi', 'acme/backup'], provider: { order: ['cheap', 'mid'] } });
    assert.equal(served.status, 200, served.text);
    assert.deepEqual(rig.received(), ['multi-dear', 'backup-dear']);

    // A price ceiling (USD per million tokens): only cheap ($1/M) passes for acme/multi.
    const cheapOnly = await call('PATCH', `${keys()}/${k.hash}`, mgmt, {
      allowed_providers: null,
      max_price: { prompt: '1.5', completion: 1.5 },
    });
    assert.equal(cheapOnly.status, 200, JSON.stringify(cheapOnly.json));
    assert.deepEqual(cheapOnly.json.data.max_price, { prompt: '1.5', completion: '1.5' });
    assert.equal(cheapOnly.json.data.allowed_providers, null);
    rig.reset();
    // The only endpoint left is retried (the plan's last), never replaced by a dearer one.
    for (let i = 0; i < 3; i++) rig.emus.cheap.enqueue({ fault: 'status', status: 503 });
    const capped = await chat(k.key, { model: 'acme/multi' });
    assert.equal(capped.status, 502, 'the dearer endpoints are not fallbacks');
    assert.deepEqual(rig.received(), ['multi-cheap', 'multi-cheap', 'multi-cheap']);
    assert.equal((await chat(k.key, { model: 'acme/backup' })).json.error.code, 'model_not_found');
  });

  test("the account's list and the key's are intersected; the admin API sets and clears the account's", async () => {
    const k = await newKey({ allowed_models: ['acme/*'] });
    const account = `${rig.gw.origin}/api/v1/admin/accounts/${rig.gw.accountId}`;
    const set = await call('PATCH', account, admin, { allowed_models: ['acme/multi', 'acme/backup', 'switchyard/*'] });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    assert.deepEqual(set.json.data.allowed_models, ['acme/multi', 'acme/backup', 'switchyard/*']);
    assert.equal((await chat(k.key, { model: 'acme/backup' })).status, 200);
    assert.equal((await chat(k.key, { model: 'acme/other' })).json.error.code, 'model_not_found', "the account's list refuses it");
    // The test gateway's own key has no list of its own: the account's applies alone.
    assert.equal((await chat(rig.gw.key, { model: 'acme/small' })).json.error.code, 'model_not_found');
    const cleared = await call('PATCH', account, admin, { allowed_models: null });
    assert.equal(cleared.json.data.allowed_models, null);
    assert.equal((await chat(rig.gw.key, { model: 'acme/other' })).status, 200);
    assert.equal((await chat(k.key, { model: 'acme/other' })).status, 200);

    const audit = await call('GET', `${rig.gw.origin}/api/v1/admin/audit?target=${rig.gw.accountId}`, admin);
    const updates = audit.json.data.filter((e: any) => e.action === 'account.update').map((e: any) => e.details.allowed_models);
    assert.deepEqual(updates, [null, ['acme/multi', 'acme/backup', 'switchyard/*']]);
  });

  test("each change of a key's reach is audited, by the management and the admin API", async () => {
    const k = await newKey({ allowed_models: ['acme/multi'], max_in_flight: 3 });
    assert.equal(k.data.max_in_flight, 3);
    await call('PATCH', `${keys()}/${k.hash}`, mgmt, { allowed_models: ['acme/*'] });
    const byAdmin = await call('PATCH', `${rig.gw.origin}/api/v1/admin/keys/${k.hash}`, admin, {
      max_in_flight: null,
      allowed_providers: ['mid'],
    });
    assert.equal(byAdmin.status, 200, JSON.stringify(byAdmin.json));
    assert.equal(byAdmin.json.data.max_in_flight, null);
    assert.deepEqual(byAdmin.json.data.allowed_providers, ['mid']);
    const audit = await call('GET', `${rig.gw.origin}/api/v1/admin/audit?target=${k.hash}`, admin);
    const rows = audit.json.data.map((e: any) => [
      e.action,
      e.details.allowed_models,
      e.details.allowed_providers,
      e.details.max_in_flight,
    ]);
    assert.deepEqual(rows, [
      ['key.access', ['acme/*'], ['mid'], null],
      ['key.access', ['acme/*'], null, 3],
      ['key.create', ['acme/multi'], null, 3],
    ]);
  });

  test('the schema is strict and the values bounded: each refusal names its field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ allowed_model: ['acme/multi'] }, /allowed_model/],
      [{ allowed_models: 'acme/multi' }, /allowed_models/],
      [{ allowed_models: ['acme multi'] }, /allowed_models/],
      [{ allowed_providers: [''] }, /allowed_providers/],
      [{ max_price: { prompt: '-1' } }, /max_price/],
      [{ max_price: { request: '1' } }, /max_price/],
      [{ max_price: {} }, /max_price/],
      [{ max_in_flight: 0 }, /max_in_flight/],
      [{ max_in_flight: 1.5 }, /max_in_flight/],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', keys(), mgmt, { name: 'bad', ...body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(JSON.stringify(res.json.error), field, JSON.stringify(body));
    }
    const account = await call('PATCH', `${rig.gw.origin}/api/v1/admin/accounts/${rig.gw.accountId}`, admin, { max_in_flight: 2 });
    assert.equal(account.status, 400, "max_in_flight is a key's, not an account's");
    assert.match(JSON.stringify(account.json.error), /max_in_flight/);
  });
});

describe('allowlists across the other endpoints and the CLI (sim provider)', () => {
  let gw: TestGateway;
  let key: string;
  let hash: string;
  before(async () => {
    gw = await startTestGateway({ yaml: SIM_ONLY });
    const made = await gw.services.accountService.createKey({
      accountId: gw.accountId,
      name: 'chat only',
      allowlist: { models: ['switchyard/sim-fast'] },
    });
    key = made.key;
    hash = made.record.hash;
  });
  after(() => gw.close());

  test("embeddings, images and Gemini's API refuse a model outside the list as an unknown one", async () => {
    const embed = (model: string) => postJson(`${gw.baseUrl}/embeddings`, { model, input: 'hello' }, bearer(key));
    const e = await embed('switchyard/sim-embed');
    assert.equal(e.json.error.code, 'model_not_found');
    assert.equal(shape(e, 'switchyard/sim-embed'), shape(await embed('switchyard/no-embed'), 'switchyard/no-embed'));
    const image = (model: string) => postJson(`${gw.baseUrl}/images/generations`, { model, prompt: 'a cat' }, bearer(key));
    assert.equal(
      shape(await image('switchyard/sim-image'), 'switchyard/sim-image'),
      shape(await image('switchyard/no-image'), 'switchyard/no-image'),
    );
    const gemini = (model: string, method: string) =>
      postJson(`${gw.origin}/v1beta/models/${model}:${method}`, { contents: [{ parts: [{ text: 'hi' }] }] }, { 'x-goog-api-key': key });
    for (const method of ['generateContent', 'countTokens']) {
      const g = await gemini('switchyard/sim-pro', method);
      assert.notEqual(g.status, 200, method);
      assert.equal(shape(g, 'switchyard/sim-pro'), shape(await gemini('switchyard/no-model', method), 'switchyard/no-model'), method);
    }
    assert.equal((await gemini('switchyard/sim-fast', 'generateContent')).status, 200);
    const list = (await (await fetch(`${gw.origin}/v1beta/models`, { headers: { 'x-goog-api-key': key } })).json()) as {
      models: Array<{ name: string }>;
    };
    assert.deepEqual(
      list.models.map((m) => m.name),
      ['models/switchyard/sim-fast'],
    );
  });

  test("the CLI sets a key's and an account's allowlist and cap, and the gateway applies them", async () => {
    const updated = runCliJson(
      gw.dir,
      'keys',
      'update',
      hash,
      '--allowed-models',
      'switchyard/sim-fast,switchyard/sim-embed',
      '--max-in-flight',
      '2',
    );
    assert.deepEqual(updated.allowed_models, ['switchyard/sim-fast', 'switchyard/sim-embed']);
    assert.equal(updated.max_in_flight, 2);
    const created = runCliJson(
      gw.dir,
      'keys',
      'create',
      '--account',
      gw.accountId,
      '--name',
      'cli',
      '--allowed-providers',
      'sim',
      '--max-price',
      'prompt=0',
    );
    assert.deepEqual(created.allowed_providers, ['sim']);
    assert.deepEqual(created.max_price, { prompt: '0' });
    const account = runCliJson(gw.dir, 'accounts', 'update', '--account', gw.accountId, '--allowed-models', 'switchyard/sim-embed');
    assert.deepEqual(account.allowed_models, ['switchyard/sim-embed']);
    await gw.seeCliChanges();
    // The intersection of the key's (sim-fast, sim-embed) and the account's (sim-embed).
    assert.equal((await postJson(`${gw.baseUrl}/embeddings`, { model: 'switchyard/sim-embed', input: 'hi' }, bearer(key))).status, 200);
    assert.equal(
      (await postJson(`${gw.baseUrl}/chat/completions`, { model: 'switchyard/sim-fast', messages: user('hi') }, bearer(key))).json.error
        .code,
      'model_not_found',
    );
    const cleared = runCliJson(gw.dir, 'accounts', 'update', '--account', gw.accountId, '--allowed-models', 'none');
    assert.equal(cleared.allowed_models, null);
  });
});
