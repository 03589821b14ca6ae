import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, createAdminKey } from '../support/admin-client.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The admin and management routes' answers are serialized by their declared response schema
// (src/server/openapi/answer-serializer.ts), the one the OpenAPI document shows: an answer is
// its schema's projection, and a field a store row gains that the schema does not name is
// never written (no accidental leak of a new internal field).

type Json = Record<string, unknown>;

/** `value` as `schema` describes it: what a closed object does not list is dropped. Components from the served document. */
function project(value: unknown, schema: Json | undefined, components: Record<string, Json>): unknown {
  if (schema === undefined) return value;
  if (typeof schema.$ref === 'string') return project(value, components[schema.$ref.replace('#/components/schemas/', '')], components);
  const branches = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (branches !== undefined) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
    const fits = branches.find((b) => {
      const resolved = typeof b.$ref === 'string' ? components[b.$ref.replace('#/components/schemas/', '')]! : b;
      const types = ([] as unknown[]).concat(resolved.type ?? []);
      return types.length === 0 || types.includes(kind) || (kind === 'number' && types.includes('integer'));
    });
    return project(value, fits, components);
  }
  if (Array.isArray(value)) return value.map((v) => project(v, schema.items as Json | undefined, components));
  if (value === null || typeof value !== 'object') return value;
  const properties = schema.properties as Record<string, Json> | undefined;
  if (properties === undefined) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k in properties) out[k] = project(v, properties[k], components);
    else if (schema.additionalProperties !== false) out[k] = v;
  }
  return out;
}

describe('admin and management answers are serialized by their schema', () => {
  let gw: TestGateway;
  let admin: string;
  let components: Record<string, Json>;
  before(async () => {
    gw = await startTestGateway();
    admin = (await createAdminKey(gw)).key;
    components = (await call('GET', `${gw.origin}/api/v1/openapi.json`, null)).json.components.schemas;
  });
  after(async () => {
    await gw.close();
  });

  test("a route's answer equals its schema's projection (an account, a page of keys, the audit log)", async () => {
    assert.equal((await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { name: 'projected' })).status, 200);
    const cases: Array<[string, string]> = [
      [`/api/v1/admin/accounts/${gw.accountId}`, 'AccountAnswer'],
      ['/api/v1/admin/keys', 'KeyPage'],
      ['/api/v1/admin/audit', 'AuditPage'],
    ];
    for (const [path, component] of cases) {
      const res = await call('GET', `${gw.origin}${path}`, admin);
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.json)}`);
      assert.ok(components[component], `${component} is a component`);
      assert.deepEqual(res.json, project(res.json, components[component], components), path);
      const data = (res.json as Json).data as Json;
      assert.ok(Object.keys(data).length > 0, `${path} answered something`);
    }
  });

  test('a field a store row gains but the schema does not name is never answered; free-form fields stay whole', async () => {
    const account = await gw.services.accountService.createAccount({ name: 'leaky', type: 'user', tier: 'tier2', creditsUsd: '1' });
    // As a later version (or a hand-edited row) would leave them: stored JSON with fields no schema names.
    gw.db
      .prepare('UPDATE accounts SET limits_override = ?, guardrails = ? WHERE id = ?')
      .run(
        JSON.stringify({ requests_per_minute: 7, internal_note: 'not for clients' }),
        JSON.stringify([{ detector: 'email', action: 'redact', upstream_secret: 'sk-internal-1234' }]),
        account.id,
      );
    const res = await call('GET', `${gw.origin}/api/v1/admin/accounts/${account.id}`, admin);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json.data.limits_override, { requests_per_minute: 7 });
    assert.deepEqual(res.json.data.guardrails, [{ detector: 'email', action: 'redact' }]);
    assert.equal(JSON.stringify(res.json).includes('internal_note'), false);
    assert.equal(JSON.stringify(res.json).includes('sk-internal-1234'), false);
    // The audit log's details are free-form in its schema: kept as they are.
    const change = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${account.id}`, admin, { name: 'renamed' });
    assert.equal(change.status, 200, JSON.stringify(change.json));
    const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?target=${account.id}`, admin);
    const entry = audit.json.data.find((e: Json) => e.action === 'account.update');
    assert.ok(entry, JSON.stringify(audit.json));
    assert.equal(typeof entry.details, 'object');
    assert.ok(Object.keys(entry.details).length > 0, JSON.stringify(entry));
  });
});
