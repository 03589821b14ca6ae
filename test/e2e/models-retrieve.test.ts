import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET /v1/models/{id} (openai.models.retrieve) and the public model list (server.public_models).

describe('GET /v1/models/{id}', () => {
  let gw: TestGateway;
  before(async () => {
    // A credential enables the built-in OpenAI models; nothing here calls a model.
    gw = await startTestGateway({ env: { OPENAI_API_KEY: 'sk-test-not-used' } });
  });
  after(() => gw.close());

  test("openai.models.retrieve('openai/gpt-4.1') returns the model's record (the client encodes the slash)", async () => {
    const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
    const model = await client.models.retrieve('openai/gpt-4.1');
    assert.equal(model.id, 'openai/gpt-4.1');
    const listed = (await client.models.list()).data.find((m) => m.id === 'openai/gpt-4.1');
    assert.deepEqual(model, listed, 'the same record as in the list');
  });

  test("the Anthropic SDK's models.retrieve reaches it too", async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ baseURL: gw.origin, apiKey: gw.key, maxRetries: 0 });
    const model = await client.models.retrieve('openai/gpt-4.1');
    assert.equal(model.id, 'openai/gpt-4.1');
  });

  test('the id is accepted with its slash as is and encoded, under both prefixes, variants included', async () => {
    for (const prefix of ['/v1', '/api/v1']) {
      for (const path of ['openai/gpt-4.1', 'openai%2Fgpt-4.1', 'openai/gpt-4.1:nitro', 'openai%2Fgpt-4.1%3Anitro', 'gpt-4.1']) {
        const res = await fetch(`${gw.origin}${prefix}/models/${path}`);
        assert.equal(res.status, 200, `${prefix}/models/${path}`);
        assert.equal(((await res.json()) as { id: string }).id, 'openai/gpt-4.1', path);
      }
    }
  });

  test('an unknown model is a 404 in the error record shape, through the client too', async () => {
    const res = await fetch(`${gw.baseUrl}/models/acme%2Fnope`);
    assert.equal(res.status, 404);
    const body = (await res.json()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'not_found_error');
    assert.match(body.error.message, /acme\/nope/);
    const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
    await assert.rejects(client.models.retrieve('acme/nope'), (err: unknown) => err instanceof OpenAI.NotFoundError);
  });

  test('the endpoints listing keeps its route', async () => {
    const res = await fetch(`${gw.baseUrl}/models/openai/gpt-4.1/endpoints`, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as { data: { id: string; endpoints: unknown[] } };
    assert.equal(data.id, 'openai/gpt-4.1');
    assert.ok(data.endpoints.length >= 1);
  });
});

describe('server.public_models: false', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}server: { public_models: false }\n` });
  });
  after(() => gw.close());

  test('the list and a model need a valid key, and a valid key is an authentication check', async () => {
    for (const path of ['models', 'models/switchyard/sim-pro', 'models/switchyard%2Fsim-pro']) {
      for (const headers of [{}, { authorization: 'Bearer sk-sy-v1-wrong' }]) {
        const res = await fetch(`${gw.baseUrl}/${path}`, { headers });
        assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.equal(((await res.json()) as { error: { type: string } }).error.type, 'authentication_error');
      }
      assert.equal((await fetch(`${gw.baseUrl}/${path}`, { headers: { authorization: `Bearer ${gw.key}` } })).status, 200, path);
      assert.equal((await fetch(`${gw.baseUrl}/${path}`, { headers: { 'x-api-key': gw.key } })).status, 200, path);
    }
  });
});

describe('server.public_models in the config file', () => {
  test('takes true or false, and names the field otherwise', async () => {
    const { parseConfig } = await import('../../src/config/load-config.ts');
    assert.equal(parseConfig({ server: { public_models: false } }, {}).server.publicModels, false);
    assert.equal(parseConfig({}, {}).server.publicModels, undefined, 'absent: public');
    assert.throws(() => parseConfig({ server: { public_models: 'maybe' } }, {}), /server\.public_models/);
  });
});
