import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { registeredRoutes } from '../../src/server/openapi/register-openapi.ts';

// A repeated query parameter (`?id=a&id=b`, which the querystring parser makes an array)
// is a 400 naming it on every GET route, never a 500 or a CSV download cut mid-file.

/** Names the GET routes read (beside those their OpenAPI entries document). */
const COMMON_NAMES = [
  'id',
  'limit',
  'cursor',
  'offset',
  'details',
  'include_disabled',
  'account',
  'from',
  'to',
  'search',
  'group_by',
  'key',
  'model',
];

describe('repeated query parameters', () => {
  let gw: TestGateway;
  let keys: Array<[string, string]>;
  let doc: any;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    keys = [
      ['api', gw.key],
      ['management', mgmt],
      ['admin', (await createAdminKey(gw)).key],
    ];
    doc = await (await fetch(`${gw.origin}/api/v1/openapi.json`)).json();
  });
  after(() => gw.close());

  test('every GET route answers 400 naming each repeated parameter (with the key kind it takes), never 500', async () => {
    const routes = registeredRoutes(gw.app).filter((r) => r.method === 'GET');
    assert.ok(routes.length > 40, `${routes.length} GET routes`);
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, 'x').replace(/\*$/, 'switchyard/sim-fast');
      const documented = (doc.paths[route.url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{model_id}')]?.get?.parameters ?? [])
        .filter((p: any) => p.in === 'query')
        .map((p: any) => p.name as string);
      for (const name of new Set([...documented, ...COMMON_NAMES])) {
        const url = `${gw.origin}${path}?${name}=a&${name}=b`;
        const answers: Array<[string, number, any]> = [];
        for (const [kind, key] of keys) {
          const res = await call('GET', url, key).catch(async () => ({
            status: (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).status,
            json: undefined,
          }));
          answers.push([kind, res.status, res.json]);
        }
        for (const [kind, status] of answers) assert.notEqual(status, 500, `${route.url} ?${name}= twice, ${kind} key`);
        // The parameter as each shape names it: the spec's record (`param`), Google's ErrorInfo (`metadata.param`: Gemini's routes).
        const named = (json: any): unknown => json?.error?.param ?? json?.error?.details?.[0]?.metadata?.param;
        const refused = answers.find(([, status, json]) => status === 400 && named(json) === name);
        assert.ok(
          refused !== undefined,
          `${route.url} ?${name}= twice: a 400 naming it (got ${answers.map(([k, s]) => `${k} ${s}`).join(', ')})`,
        );
      }
    }
  });

  test('the CSV export refuses before it starts the file', async () => {
    const [, admin] = keys[2]!;
    const res = await fetch(`${gw.origin}/api/v1/admin/generations.csv?model=a&model=b`, { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /json/);
    const body = (await res.json()) as { error: { code: string; param: string } };
    assert.deepEqual([body.error.code, body.error.param], ['invalid_parameter', 'model']);
  });
});
