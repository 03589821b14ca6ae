import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { registeredRoutes } from '../../src/server/openapi/register-openapi.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describeRoutes } from '../../src/server/route-access.ts';
import { securityOf } from '../../src/server/openapi/route-security.ts';

const docPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{model_id}');

describe('OpenAPI document', () => {
  let gw: TestGateway;
  let doc: any;
  let adminKey: string;
  before(async () => {
    gw = await startTestGateway();
    adminKey = (await createAdminKey(gw)).key;
    const res = await fetch(`${gw.origin}/api/v1/openapi.json`);
    assert.equal(res.status, 200);
    doc = await res.json();
  });
  after(() => gw.close());

  test('is OpenAPI 3.1 and documents every registered route (public and admin) with a summary and a response', () => {
    assert.equal(doc.openapi, '3.1.0');
    const routes = registeredRoutes(gw.app).filter((r) => r.method !== 'HEAD'); // HEAD routes are Fastify's automatic twins of GET
    assert.ok(routes.length > 50);
    for (const prefix of ['/api/v1', '/v1']) {
      for (const path of [
        '/chat/completions',
        '/messages',
        '/responses',
        '/models',
        '/keys',
        '/admin/accounts',
        '/admin/usage',
        '/activity',
        '/openapi.json',
      ]) {
        assert.ok(
          routes.some((r) => r.url === prefix + path),
          `${prefix}${path} registered`,
        );
      }
    }
    for (const r of routes) {
      const op = doc.paths[docPath(r.url)]?.[r.method.toLowerCase()];
      assert.ok(op !== undefined, `${r.method} ${r.url} is in the document`);
      assert.equal(typeof op.summary, 'string', `${r.method} ${r.url} has a summary`);
      assert.ok(Object.keys(op.responses).length > 0, `${r.method} ${r.url} has responses`);
    }
  });

  test("every operation's success answer is described: JSON by a named schema, anything else by its media type", () => {
    const vague: string[] = [];
    for (const [path, ops] of Object.entries<
      Record<string, { responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>
    >(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!status.startsWith('2')) continue;
          const content = response.content ?? {};
          const json = content['application/json'];
          if (Object.keys(content).length === 0 || (json !== undefined && json.schema?.$ref === undefined))
            vague.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    assert.deepEqual(vague, [], 'answers without a named schema (openapi/response-components.ts) or a media type (`produces`)');
  });

  test('every operation has a unique operationId and the security its declared access enforces', () => {
    const ids = new Set<string>();
    const declared = describeRoutes(gw.app);
    for (const r of registeredRoutes(gw.app).filter((x) => x.method !== 'HEAD')) {
      const op = doc.paths[docPath(r.url)][r.method.toLowerCase()];
      assert.match(op.operationId, /^[a-z]+[A-Za-z0-9]*$/, `${r.method} ${r.url} has an operationId`);
      assert.ok(!ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
      const access = declared.find((d) => d.method === r.method && d.url === r.url)?.access;
      assert.ok(access !== undefined, `${r.method} ${r.url} declares its access`);
      assert.deepEqual(op.security, securityOf(access), `${r.method} ${r.url} (${access.auth})`);
      for (const alt of op.security)
        for (const scheme of Object.keys(alt)) assert.ok(doc.components.securitySchemes[scheme], `scheme ${scheme} is defined`);
    }
    // Spelled out for the routes the issue named: the public model list needs no key.
    assert.deepEqual(doc.paths['/api/v1/models'].get.security, []);
    assert.deepEqual(doc.paths['/v1/models'].get.security, []);
    assert.deepEqual(doc.paths['/health'].get.security, []);
    assert.deepEqual(doc.paths['/v1/messages'].post.security, [{ apiKey: [] }, { apiKeyHeader: [] }]);
    assert.deepEqual(doc.paths['/api/v1/admin/accounts'].get.security, [{ adminKey: [] }, { dashboardSession: [] }]);
    assert.deepEqual(doc.paths['/api/v1/keys'].get.security, [{ managementKey: [] }, { dashboardSession: [] }]);
    assert.equal(doc.paths['/api/v1/admin/accounts'].get.operationId, 'getApiV1AdminAccounts');
  });

  test('query parameters are documented with their types: limit an integer, details a boolean (validation still takes them as text)', async () => {
    const param = (path: string, name: string): any => doc.paths[path].get.parameters.find((p: any) => p.in === 'query' && p.name === name);
    assert.deepEqual(param('/api/v1/admin/accounts', 'limit').schema, { type: 'integer', minimum: 1, maximum: 200 });
    assert.equal(param('/api/v1/keys', 'limit').schema.type, 'integer');
    assert.equal(param('/api/v1/keys', 'offset').schema.type, 'integer');
    assert.equal(param('/api/v1/key', 'details').schema.type, 'boolean');
    assert.equal(param('/api/v1/admin/accounts', 'search').schema.type, 'string');
    assert.equal(
      (await call('GET', `${gw.origin}/api/v1/admin/accounts?limit=2`, adminKey)).status,
      200,
      'limit=2 (text on the wire) is still taken',
    );
  });

  test('the /v1/messages aliases under a prefix are served but not documented as paths of their own', async () => {
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.includes('/v1/v1/')),
      [],
    );
    assert.match(doc.paths['/v1/messages'].post.summary, /alias/);
    const res = await postJson(
      `${gw.origin}/v1/v1/messages`,
      { model: 'switchyard/sim-fast', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, 'the alias still answers');
  });

  test('documenting bodies changes no validation: the dialects still answer bad bodies in their own shapes', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    assert.ok(doc.paths['/v1/messages'].post.requestBody, 'the messages body is documented');
    const messages = await postJson(`${gw.baseUrl}/messages`, { model: 'switchyard/sim-fast', messages: 'nope' }, auth);
    assert.equal(messages.status, 400);
    assert.equal(messages.json.type, 'error');
    assert.equal(messages.json.error.type, 'invalid_request_error');
    const chat = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'switchyard/sim-fast', messages: 7 }, auth);
    assert.equal(chat.status, 400);
    assert.equal(chat.json.error.code, 'invalid_parameter');
    const keys = await postJson(`${gw.baseUrl}/keys`, { name: 5 }, auth);
    assert.equal(keys.status, 403, 'the handler decides, not a schema');
  });

  /** The documented schema of an answer: the operation's response for the status, else its default (errors). */
  function validatorFor(path: string, method: string, status: number): (value: unknown) => string | undefined {
    const op = doc.paths[path]?.[method];
    assert.ok(op !== undefined, `${method} ${path} is documented`);
    const response = op.responses[String(status)] ?? op.responses.default;
    const schema = response?.content?.['application/json']?.schema;
    assert.match(schema?.$ref ?? '', /^#\/components\/schemas\/\w+$/, `${method} ${path} ${status} answers a named schema`);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'https://switchyard.test/openapi.json', components: doc.components });
    const validate = ajv.compile({ $ref: `https://switchyard.test/openapi.json${schema.$ref}` });
    return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors));
  }

  test('the answers of a real gateway match their documented schemas (public, account and admin reads, model calls, errors per dialect)', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    await gw.flush();
    const get = async (url: string, key: string | null): Promise<{ status: number; json: unknown }> => call('GET', url, key);
    const cases: { path: string; method: string; status: number; answer: () => Promise<{ status: number; json: unknown }> }[] = [
      { status: 200, path: '/v1/models', method: 'get', answer: () => get(`${gw.origin}/v1/models`, null) },
      { status: 200, path: '/api/v1/models', method: 'get', answer: () => get(`${gw.origin}/api/v1/models`, null) },
      { status: 200, path: '/v1/models/{model_id}', method: 'get', answer: () => get(`${gw.origin}/v1/models/switchyard/sim-fast`, null) },
      { status: 404, path: '/v1/models/{model_id}', method: 'get', answer: () => get(`${gw.origin}/v1/models/nobody/nothing`, null) },
      { status: 200, path: '/health', method: 'get', answer: () => get(`${gw.origin}/health`, null) },
      { status: 200, path: '/api/v1/key', method: 'get', answer: () => get(`${gw.origin}/api/v1/key`, gw.key) },
      { status: 200, path: '/api/v1/key', method: 'get', answer: () => get(`${gw.origin}/api/v1/key?details=true`, gw.key) },
      { status: 401, path: '/api/v1/key', method: 'get', answer: () => get(`${gw.origin}/api/v1/key`, null) },
      { status: 200, path: '/api/v1/credits', method: 'get', answer: () => get(`${gw.origin}/api/v1/credits`, gw.key) },
      {
        status: 200,
        path: '/api/v1/generation',
        method: 'get',
        answer: () => get(`${gw.origin}/api/v1/generation?id=${(chat.json as { id: string }).id}`, gw.key),
      },
      {
        status: 200,
        path: '/api/v1/admin/accounts',
        method: 'get',
        answer: () => get(`${gw.origin}/api/v1/admin/accounts?limit=2`, adminKey),
      },
      {
        status: 400,
        path: '/api/v1/admin/accounts',
        method: 'get',
        answer: () => get(`${gw.origin}/api/v1/admin/accounts?limit=nope`, adminKey),
      },
      { status: 403, path: '/api/v1/admin/accounts', method: 'get', answer: () => get(`${gw.origin}/api/v1/admin/accounts`, gw.key) },
      {
        status: 200,
        path: '/api/v1/admin/accounts/{id}',
        method: 'get',
        answer: () => get(`${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, adminKey),
      },
      { status: 200, path: '/api/v1/admin/keys', method: 'get', answer: () => get(`${gw.origin}/api/v1/admin/keys?limit=3`, adminKey) },
      { status: 200, path: '/v1/chat/completions', method: 'post', answer: async () => chat },
      {
        status: 400,
        path: '/v1/chat/completions',
        method: 'post',
        answer: () => postJson(`${gw.baseUrl}/chat/completions`, { model: 'switchyard/sim-fast', messages: 7 }, auth),
      },
      {
        status: 200,
        path: '/v1/embeddings',
        method: 'post',
        answer: () => postJson(`${gw.baseUrl}/embeddings`, { model: 'switchyard/sim-embed', input: ['a', 'b'] }, auth),
      },
      {
        status: 400,
        path: '/v1/messages',
        method: 'post',
        answer: () => postJson(`${gw.baseUrl}/messages`, { model: 'switchyard/sim-fast', messages: 'nope' }, auth),
      },
      { status: 401, path: '/v1/messages', method: 'post', answer: () => postJson(`${gw.baseUrl}/messages`, {}, {}) },
      {
        status: 401,
        path: '/v1beta/models/{model_id}',
        method: 'post',
        answer: () => postJson(`${gw.origin}/v1beta/models/switchyard/sim-fast:generateContent`, {}, {}),
      },
    ];
    // The admin and account writes and reads: a management key made by the admin API first.
    const made = await call('POST', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}/keys`, adminKey, {
      name: 'manager',
      kind: 'management',
    });
    const mgmt = made.json.key as string;
    const own = await call('POST', `${gw.origin}/api/v1/keys`, mgmt, { name: 'made by the manager' });
    const api = `${gw.origin}/api/v1`;
    cases.push(
      { status: 201, path: '/api/v1/admin/accounts/{id}/keys', method: 'post', answer: async () => made },
      {
        status: 200,
        path: '/api/v1/admin/keys/{hash}',
        method: 'patch',
        answer: () => call('PATCH', `${api}/admin/keys/${made.json.data.hash}`, adminKey, { limit: '5' }),
      },
      {
        status: 201,
        path: '/api/v1/admin/accounts',
        method: 'post',
        answer: () => call('POST', `${api}/admin/accounts`, adminKey, { name: 'second' }),
      },
      {
        status: 200,
        path: '/api/v1/admin/accounts/{id}',
        method: 'patch',
        answer: () => call('PATCH', `${api}/admin/accounts/${gw.accountId}`, adminKey, { name: 'renamed account' }),
      },
      { status: 200, path: '/api/v1/admin/generations', method: 'get', answer: () => get(`${api}/admin/generations?limit=5`, adminKey) },
      {
        status: 200,
        path: '/api/v1/admin/generations/{id}',
        method: 'get',
        answer: () => get(`${api}/admin/generations/${(chat.json as { id: string }).id}`, adminKey),
      },
      {
        status: 200,
        path: '/api/v1/admin/accounts/{id}/ledger',
        method: 'get',
        answer: () => get(`${api}/admin/accounts/${gw.accountId}/ledger`, adminKey),
      },
      { status: 200, path: '/api/v1/admin/audit', method: 'get', answer: () => get(`${api}/admin/audit`, adminKey) },
      { status: 200, path: '/api/v1/activity', method: 'get', answer: () => get(`${api}/activity`, mgmt) },
      { status: 200, path: '/api/v1/ledger', method: 'get', answer: () => get(`${api}/ledger`, mgmt) },
      { status: 201, path: '/api/v1/keys', method: 'post', answer: async () => own },
      { status: 200, path: '/api/v1/keys', method: 'get', answer: () => get(`${api}/keys`, mgmt) },
      { status: 200, path: '/api/v1/keys/{hash}', method: 'get', answer: () => get(`${api}/keys/${own.json.data.hash}`, mgmt) },
      {
        status: 200,
        path: '/api/v1/keys/{hash}',
        method: 'patch',
        answer: () => call('PATCH', `${api}/keys/${own.json.data.hash}`, mgmt, { disabled: true }),
      },
      {
        status: 200,
        path: '/api/v1/keys/{hash}/rotate',
        method: 'post',
        answer: () => call('POST', `${api}/keys/${own.json.data.hash}/rotate`, mgmt),
      },
      {
        status: 400,
        path: '/api/v1/keys/{hash}/rotate',
        method: 'post',
        answer: () => call('POST', `${api}/keys/${own.json.data.hash}/rotate`, mgmt, { overlap_seconds: 604_801 }),
      },
      // An overlap: the management key rotated here keeps working for the cases after this one.
      {
        status: 200,
        path: '/api/v1/admin/keys/{hash}/rotate',
        method: 'post',
        answer: () => call('POST', `${api}/admin/keys/${made.json.data.hash}/rotate`, adminKey, { overlap_seconds: 3600 }),
      },
      { status: 200, path: '/api/v1/account', method: 'get', answer: () => get(`${api}/account`, mgmt) },
      { status: 200, path: '/api/v1/account', method: 'patch', answer: () => call('PATCH', `${api}/account`, mgmt, { name: 'mine' }) },
      {
        status: 200,
        path: '/v1/messages',
        method: 'post',
        answer: () =>
          postJson(
            `${gw.baseUrl}/messages`,
            { model: 'switchyard/sim-fast', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
            auth,
          ),
      },
      { status: 200, path: '/ready', method: 'get', answer: () => get(`${gw.origin}/ready`, null) },
      {
        status: 200,
        path: '/api/v1/models/{author}/{slug}/endpoints',
        method: 'get',
        answer: () => get(`${api}/models/switchyard/sim-fast/endpoints`, gw.key),
      },
      {
        status: 200,
        path: '/api/v1/admin/keys/{hash}/usage',
        method: 'get',
        answer: () => get(`${api}/admin/keys/${gw.keyHash}/usage`, adminKey),
      },
      { status: 200, path: '/api/v1/keys/{hash}/usage', method: 'get', answer: () => get(`${api}/keys/${gw.keyHash}/usage`, mgmt) },
      { status: 200, path: '/api/v1/admin/usage', method: 'get', answer: () => get(`${api}/admin/usage?group_by=account`, adminKey) },
      { status: 200, path: '/api/v1/usage', method: 'get', answer: () => get(`${api}/usage`, mgmt) },
      { status: 200, path: '/api/v1/admin/refusals', method: 'get', answer: () => get(`${api}/admin/refusals`, adminKey) },
      { status: 200, path: '/api/v1/admin/health', method: 'get', answer: () => get(`${api}/admin/health`, adminKey) },
      { status: 200, path: '/api/v1/admin/config', method: 'get', answer: () => get(`${api}/admin/config`, adminKey) },
      {
        status: 200,
        path: '/api/v1/admin/config/reload',
        method: 'post',
        answer: () => call('POST', `${api}/admin/config/reload`, adminKey),
      },
      {
        status: 200,
        path: '/v1/responses',
        method: 'post',
        answer: () => postJson(`${gw.baseUrl}/responses`, { model: 'switchyard/sim-fast', input: 'hi' }, auth),
      },
      { status: 200, path: '/v1beta/models', method: 'get', answer: () => get(`${gw.origin}/v1beta/models?pageSize=1`, gw.key) },
      { status: 200, path: '/v1beta/models', method: 'get', answer: () => get(`${gw.origin}/v1beta/models?pageSize=1000`, gw.key) },
      {
        status: 200,
        path: '/api/v1/keys/{hash}',
        method: 'delete',
        answer: () => call('DELETE', `${api}/keys/${own.json.data.hash}`, mgmt),
      },
      {
        status: 201,
        path: '/api/v1/admin/accounts/{id}/credits',
        method: 'post',
        answer: () =>
          call('POST', `${api}/admin/accounts/${gw.accountId}/credits`, adminKey, { kind: 'grant', amount: '2.5', reason: 'schema test' }),
      },
      { status: 200, path: '/api/v1/dashboard/session', method: 'get', answer: () => get(`${api}/dashboard/session`, null) },
      {
        status: 200,
        path: '/api/v1/dashboard/session',
        method: 'post',
        answer: () => postJson(`${api}/dashboard/session`, { key: mgmt }, { origin: gw.origin }),
      },
      {
        status: 200,
        path: '/v1/images/generations',
        method: 'post',
        answer: () => postJson(`${gw.baseUrl}/images/generations`, { model: 'switchyard/sim-image', prompt: 'a cat' }, auth),
      },
      {
        status: 200,
        path: '/v1/images/generations',
        method: 'post',
        answer: () =>
          postJson(`${gw.baseUrl}/images/generations`, { model: 'switchyard/sim-image', prompt: 'a cat', response_format: 'url' }, auth),
      },
      {
        status: 200,
        path: '/v1/messages/count_tokens',
        method: 'post',
        answer: () =>
          postJson(
            `${gw.baseUrl}/messages/count_tokens`,
            { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] },
            auth,
          ),
      },
      {
        status: 200,
        path: '/v1beta/models/{model_id}',
        method: 'get',
        answer: () => get(`${gw.origin}/v1beta/models/switchyard/sim-fast`, gw.key),
      },
      {
        status: 200,
        path: '/v1beta/models/{model_id}',
        method: 'post',
        answer: () =>
          postJson(
            `${gw.origin}/v1beta/models/switchyard/sim-fast:generateContent`,
            { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
            auth,
          ),
      },
      {
        status: 200,
        path: '/v1beta/models/{model_id}',
        method: 'post',
        answer: () =>
          postJson(
            `${gw.origin}/v1beta/models/switchyard/sim-fast:countTokens`,
            { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
            auth,
          ),
      },
      { status: 200, path: '/api/v1/openapi.json', method: 'get', answer: () => get(`${api}/openapi.json`, null) },
      {
        status: 200,
        path: '/api/v1/admin/generations/prune',
        method: 'post',
        answer: () => call('POST', `${api}/admin/generations/prune`, adminKey),
      },
    );
    // Webhooks: registered (the receiver's address allowed as private for the test), an event delivered, replayed, removed.
    gw.services.inForce.config.webhooks.allowPrivateAddresses = true;
    const hook = await call('POST', `${api}/webhooks`, mgmt, { url: 'http://127.0.0.1:9/hook', events: ['key.created'] });
    await call('POST', `${api}/keys`, mgmt, { name: 'an event for the webhook' });
    const deliveries = await get(`${api}/webhooks/${hook.json.data.id}/deliveries`, mgmt);
    cases.push(
      { status: 201, path: '/api/v1/webhooks', method: 'post', answer: async () => hook },
      { status: 200, path: '/api/v1/webhooks', method: 'get', answer: () => get(`${api}/webhooks`, mgmt) },
      { status: 200, path: '/api/v1/webhooks/{id}/deliveries', method: 'get', answer: async () => deliveries },
      {
        status: 202,
        path: '/api/v1/webhooks/{id}/deliveries/{delivery}/replay',
        method: 'post',
        answer: () =>
          call(
            'POST',
            `${api}/webhooks/${hook.json.data.id}/deliveries/${(deliveries.json as { data: { id: string }[] }).data[0]!.id}/replay`,
            mgmt,
          ),
      },
      {
        status: 200,
        path: '/api/v1/webhooks/{id}',
        method: 'delete',
        answer: () => call('DELETE', `${api}/webhooks/${hook.json.data.id}`, mgmt),
      },
    );
    for (const c of cases) {
      const { status, json } = await c.answer();
      assert.equal(status, c.status, `${c.method.toUpperCase()} ${c.path} answered ${status} ${JSON.stringify(json).slice(0, 300)}`);
      const problem = validatorFor(c.path, c.method, status)(json);
      assert.equal(
        problem,
        undefined,
        `${c.method.toUpperCase()} ${c.path} answered ${status} ${JSON.stringify(json).slice(0, 300)}: ${problem}`,
      );
    }
  });

  test("a draining gateway's /ready answers 503 in its documented shape (Ready, not an error)", async () => {
    const draining = await startTestGateway();
    try {
      draining.services.inFlight.startDraining();
      const { status, json } = await call('GET', `${draining.origin}/ready`, null);
      assert.equal(status, 503);
      assert.equal(validatorFor('/ready', 'get', 503)(json), undefined);
      assert.equal(json.status, 'not_ready');
    } finally {
      await draining.close();
    }
  });

  test('the schema check fails on an answer its schema does not describe (a field added, a type changed, a field missing)', async () => {
    const model = (await call('GET', `${gw.origin}/v1/models/switchyard/sim-fast`, null)).json;
    const check = validatorFor('/v1/models/{model_id}', 'get', 200);
    assert.equal(check(model), undefined);
    assert.match(check({ ...model, surprise: 1 }) ?? '', /additional properties/);
    assert.match(check({ ...model, created: '2026' }) ?? '', /integer/);
    const { owned_by: _, ...missing } = model;
    assert.match(check(missing) ?? '', /owned_by/);
    const account = (await call('GET', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, adminKey)).json;
    assert.match(validatorFor('/api/v1/admin/accounts/{id}', 'get', 200)({ data: { ...account.data, balance: 'lots' } }) ?? '', /number/);
  });
});
