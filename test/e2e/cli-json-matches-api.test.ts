import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCliJson, runCliWithEnv } from '../support/run-cli.ts';

// The CLI's --json and the API name the same objects alike: an account, a key and a model
// printed by `switchyard ... --json` are the objects the admin API and GET /v1/models answer
// (one serializer each, shared), field for field.

describe("the CLI --json prints the API's objects", () => {
  let gw: TestGateway;
  let admin: Record<string, string>;
  before(async () => {
    gw = await startTestGateway();
    admin = {
      authorization: `Bearer ${(await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key}`,
    };
  });
  after(() => gw.close());

  async function apiData(path: string): Promise<any> {
    const res = await fetch(`${gw.origin}${path}`, { headers: admin });
    assert.equal(res.status, 200, path);
    return ((await res.json()) as { data: unknown }).data;
  }

  test('an account: accounts create / list --json is GET /api/v1/admin/accounts/{id}', async () => {
    const created = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Same Shape', '--credits', '12.5');
    const listed = runCliJson(gw.dir, 'accounts', 'list').find((a: any) => a.id === created.id);
    const fromApi = await apiData(`/api/v1/admin/accounts/${created.id}`);
    assert.deepEqual(created, fromApi);
    assert.deepEqual(listed, fromApi);
    assert.equal(fromApi.balance_usd, '12.5');
  });

  test("a key: keys create / list / revoke --json is the admin API's key, status included", async () => {
    const created = runCliJson(gw.dir, 'keys', 'create', '--account', gw.accountId, '--name', 'same shape', '--limit', '3');
    const { key, ...record } = created;
    assert.match(key, /^sk-sy-v1-/);
    const fromApi = (await apiData(`/api/v1/admin/keys?account=${gw.accountId}`)).find((k: any) => k.hash === record.hash);
    assert.deepEqual(record, fromApi);
    assert.equal(fromApi.status, 'active');
    assert.equal(fromApi.kind, 'api');
    const listed = runCliJson(gw.dir, 'keys', 'list', '--account', gw.accountId).find((k: any) => k.hash === record.hash);
    assert.deepEqual(listed, fromApi);
    const { changed, ...revoked } = runCliJson(gw.dir, 'keys', 'revoke', record.hash);
    assert.equal(changed, true);
    await gw.seeCliChanges();
    const revokedFromApi = (await apiData(`/api/v1/admin/keys?account=${gw.accountId}`)).find((k: any) => k.hash === record.hash);
    assert.deepEqual(revoked, revokedFromApi);
    assert.equal(revokedFromApi.status, 'revoked');
  });

  test("a model: config check --json lists GET /v1/models records (with the operator's aliases and endpoints)", async () => {
    const { data } = (await (await fetch(`${gw.origin}/v1/models`)).json()) as { data: any[] };
    assert.ok(data.length > 0);
    // The gateway's environment: no provider credential but the config file's.
    const r = runCliWithEnv(gw.dir, { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' }, 'config', 'check', '--json');
    assert.equal(r.code, 0, r.err);
    const cli = new Map((JSON.parse(r.out).models as any[]).map((m) => [m.id, m]));
    for (const record of data) {
      const { aliases, endpoints, ...fromCli } = cli.get(record.id) ?? {};
      assert.deepEqual(fromCli, record, record.id);
      assert.ok(Array.isArray(aliases));
      assert.ok(endpoints.length > 0 && endpoints.every((e: any) => e.model_id === record.id && typeof e.endpoint_id === 'string'));
    }
  });
});
