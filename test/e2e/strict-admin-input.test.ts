import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The admin API, the key-management API, the account settings and the sign-in take the
// fields their schema lists and no other: an unknown field (a typo) is a 400 naming it and
// the nearest known one, never silently ignored; an empty change is a 400, not an empty
// audit row. The schema that refuses is the one the OpenAPI document shows.

describe('strict admin and management input', () => {
  let gw: TestGateway;
  let admin: string;
  let mgmt: string;
  let doc: any;
  before(async () => {
    gw = await startTestGateway({ credits: '5' });
    admin = (await createAdminKey(gw)).key;
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    doc = await (await fetch(`${gw.origin}/api/v1/openapi.json`)).json();
  });
  after(() => gw.close());

  const api = (path: string) => `${gw.origin}/api/v1${path}`;
  const audited = async () => (await call('GET', api('/admin/audit?limit=200'), admin)).json.data.length as number;

  test('a typo is a 400 naming the field and the nearest valid one, and nothing is made', async () => {
    const keysBefore = (await gw.services.stores.accounts.listKeys(gw.accountId)).length;
    const accountsBefore = await gw.services.stores.accounts.countAccounts();
    const auditBefore = await audited();

    const limitt = await call('POST', api(`/admin/accounts/${gw.accountId}/keys`), admin, { name: 't', limitt: '5' });
    assert.equal(limitt.status, 400);
    assert.equal(limitt.json.error.code, 'invalid_parameter');
    assert.equal(limitt.json.error.param, 'limitt');
    assert.match(limitt.json.error.message, /Unknown field "limitt"\. Did you mean "limit"\?/);

    const teir = await call('POST', api('/admin/accounts'), admin, { teir: 'tier2', credit: '100' });
    assert.equal(teir.status, 400);
    assert.match(teir.json.error.message, /"teir"\. Did you mean "tier"\?/);

    const tierr = await call('PATCH', api(`/admin/accounts/${gw.accountId}`), admin, { tierr: 'free' });
    assert.equal(tierr.status, 400);
    assert.match(tierr.json.error.message, /Did you mean "tier"\?/);

    const nested = await call('PATCH', api(`/admin/accounts/${gw.accountId}`), admin, { limits: { requests_per_mnute: 5 } });
    assert.equal(nested.status, 400);
    assert.equal(nested.json.error.param, 'limits.requests_per_mnute');
    assert.match(nested.json.error.message, /Did you mean "requests_per_minute"\?/);

    const credits = await call('POST', api(`/admin/accounts/${gw.accountId}/credits`), admin, {
      kind: 'grant',
      amount: '1',
      reason: 'r',
      note: 'x',
    });
    assert.equal(credits.status, 400);
    assert.equal(credits.json.error.param, 'note');

    const adminKey = await call('PATCH', api(`/admin/keys/${gw.keyHash}`), admin, { disable: true });
    assert.equal(adminKey.status, 400);
    assert.match(adminKey.json.error.message, /Did you mean "disabled"\?/);

    const ownKeys = await call('POST', api('/keys'), mgmt, { name: 'k', limt: 1 });
    assert.equal(ownKeys.status, 400);
    assert.match(ownKeys.json.error.message, /Did you mean "limit"\?/);

    const account = await call('PATCH', api('/account'), mgmt, { nmae: 'x' });
    assert.equal(account.status, 400);
    assert.match(account.json.error.message, /Did you mean "name"\?/);

    const signIn = await postJson(api('/dashboard/session'), { key: mgmt, remember: true });
    assert.equal(signIn.status, 400);
    assert.equal(signIn.json.error.param, 'remember');
    assert.equal(signIn.headers.get('set-cookie'), null);

    assert.equal((await gw.services.stores.accounts.listKeys(gw.accountId)).length, keysBefore);
    assert.equal(await gw.services.stores.accounts.countAccounts(), accountsBefore);
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.tier, 'tier2');
    assert.equal(await audited(), auditBefore, 'no audit row for a refused change');
  });

  test('wrong types and values are 400s naming the field', async () => {
    const cases: Array<[string, string, string, unknown, string]> = [
      ['POST', '/admin/accounts', admin, { name: 5 }, 'name'],
      ['POST', '/admin/accounts', admin, { name: 'x', type: 'company' }, 'type'],
      ['PATCH', `/admin/accounts/${gw.accountId}`, admin, { is_active: 'false' }, 'is_active'],
      ['PATCH', `/admin/accounts/${gw.accountId}`, admin, { limits: { requests_per_minute: 0 } }, 'limits.requests_per_minute'],
      ['POST', `/admin/accounts/${gw.accountId}/credits`, admin, { kind: 'gift', amount: '1', reason: 'r' }, 'kind'],
      ['POST', `/admin/accounts/${gw.accountId}/credits`, admin, { kind: 'grant', amount: '1' }, 'reason'],
      ['POST', `/admin/accounts/${gw.accountId}/keys`, admin, { limit_reset: 'hourly' }, 'limit_reset'],
      ['PATCH', `/keys/${gw.keyHash}`, mgmt, { disabled: 'yes' }, 'disabled'],
    ];
    for (const [method, path, key, body, param] of cases) {
      const res = await call(method, api(path), key, body);
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.json.error.param, param, `${method} ${path} ${JSON.stringify(body)}: ${res.json.error.message}`);
    }
    const notObject = await call('POST', api('/admin/accounts'), admin, ['name']);
    assert.equal(notObject.status, 400);
    assert.equal(notObject.json.error.code, 'invalid_json');
  });

  test('an empty change is a 400, not a 200 with an empty audit row', async () => {
    const auditBefore = await audited();
    for (const [path, key] of [
      [`/admin/accounts/${gw.accountId}`, admin],
      [`/admin/keys/${gw.keyHash}`, admin],
      [`/keys/${gw.keyHash}`, mgmt],
      ['/account', mgmt],
    ] as const) {
      const res = await call('PATCH', api(path), key, {});
      assert.equal(res.status, 400, path);
      assert.equal(res.json.error.code, 'missing_parameter', path);
      assert.match(res.json.error.message, /Nothing to change: give at least one of/);
    }
    assert.equal(await audited(), auditBefore);
  });

  test('an unknown query parameter of an admin or report route is a 400 with the nearest one', async () => {
    const res = await call('GET', api('/admin/accounts?serch=acme'), admin);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.param, 'serch');
    assert.match(res.json.error.message, /Unknown query parameter "serch"\. Did you mean "search"\?/);
    assert.equal((await call('GET', api('/admin/accounts?search=acme&limit=5'), admin)).status, 200);
    assert.equal((await call('GET', api('/usage?group_by=day&form=2026-01-01'), mgmt)).status, 400);
  });

  test('the OpenAPI document shows the schema that validates: closed bodies and queries, and each documented field is taken', async () => {
    let bodies = 0;
    let queries = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      const strict = /^\/(api\/)?v1\/(admin\/|keys|account$|usage|activity|ledger|dashboard\/session)/.test(path);
      for (const [method, op] of Object.entries<any>(ops)) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (strict && body !== undefined) {
          bodies++;
          assert.equal(body.additionalProperties, false, `${method} ${path}: a closed body`);
        }
        if (strict && method === 'get' && !path.includes('{')) {
          const names = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string);
          const key = path.includes('/admin/') ? admin : mgmt;
          const undocumented = await call('GET', `${gw.origin}${path}?not_documented=1`, key);
          assert.equal(undocumented.status, 400, `GET ${path} refuses a parameter it does not document`);
          assert.equal(undocumented.json?.error?.param, 'not_documented', `GET ${path}`);
          for (const name of names) {
            const res = await fetch(`${gw.origin}${path}?${name}=`, { headers: { authorization: `Bearer ${key}` } });
            const text = await res.text();
            assert.doesNotMatch(text, /Unknown query parameter/, `GET ${path} takes the documented "${name}"`);
            queries++;
          }
        }
      }
    }
    assert.ok(bodies >= 16, `${bodies} strict bodies (both prefixes)`);
    assert.ok(queries >= 30, `${queries} documented query parameters checked`);
  });

  test('the model routes still pass every body to their dialect decoders', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }], x_unknown_extension: 1 },
      auth,
    );
    assert.notEqual(chat.json?.error?.message ?? '', 'Unknown field "x_unknown_extension".');
    const messages = await postJson(
      `${gw.baseUrl}/messages`,
      { model: 'switchyard/sim-fast', max_tokens: 'many', messages: [] },
      { 'x-api-key': gw.key },
    );
    assert.equal(messages.status, 400);
    assert.equal(messages.json.type, 'error', 'the Anthropic error shape');
  });
});
