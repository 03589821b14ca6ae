import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET /api/v1/admin/config: the running configuration for the operator's dashboard, with
// every secret masked (provider keys, header values), for admin keys only.

const PROVIDER_SECRET = 'sk-upstream-0123456789abcdef-secret';
const HEADER_SECRET = 'hdr-0123456789-secret';

describe('admin config API', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    const yaml = emulatorConfig('http://127.0.0.1:9/v1').replace('    api_key: ${LOCAL_KEY}\n', `    api_key: \${LOCAL_KEY}\n    headers: { X-Team: "${HEADER_SECRET}" }\n`);
    gw = await startTestGateway({ yaml, env: { LOCAL_KEY: PROVIDER_SECRET } });
    admin = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true })).key;
  });
  after(() => gw.close());

  test('shows the running configuration with every secret masked', async () => {
    const res = await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes(PROVIDER_SECRET), 'no provider key');
    assert.ok(!text.includes(HEADER_SECRET), 'no header value');
    const body = JSON.parse(text) as { data: { providers: { id: string; apiKey?: string; headers?: Record<string, string>; baseUrl?: string }[]; server: { port: number } } };
    const local = body.data.providers.find((p) => p.id === 'local')!;
    assert.equal(local.apiKey, '********');
    assert.equal(local.headers!['X-Team'], '********');
    assert.equal(local.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(typeof body.data.server.port, 'number');
  });

  test('is refused to a management key (403)', async () => {
    const m = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    assert.equal((await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${m}` } })).status, 403);
  });
});
