import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET /api/v1/admin/config: the running configuration for the operator's dashboard, with
// every secret masked (provider keys, header values), for admin keys only: the file in its
// own YAML names, and POST /admin/config/reload, which does what SIGHUP does.

const PROVIDER_SECRET = 'sk-upstream-0123456789abcdef-secret';
const HEADER_SECRET = 'hdr-0123456789-secret';

describe('admin config API', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    const yaml = emulatorConfig('http://127.0.0.1:9/v1').replace(
      '    api_key: ${LOCAL_KEY}\n',
      `    api_key: \${LOCAL_KEY}\n    headers: { X-Team: "${HEADER_SECRET}" }\n`,
    );
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
    const body = JSON.parse(text) as {
      data: { providers: { id: string; apiKey?: string; headers?: Record<string, string>; baseUrl?: string }[]; server: { port: number } };
    };
    const local = body.data.providers.find((p) => p.id === 'local')!;
    assert.equal(local.apiKey, '********');
    assert.equal(local.headers!['X-Team'], '********');
    assert.equal(local.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(typeof body.data.server.port, 'number');
  });

  test('shows the file as written: its own YAML names, ${VAR} references unresolved, secrets masked', async () => {
    const res = await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${admin}` } });
    const body = (await res.json()) as { file: string; yaml: string; generation: number };
    assert.equal(body.file, join(gw.dir, 'switchyard.yaml'));
    assert.match(body.yaml, /^\s*base_url: http:\/\/127\.0\.0\.1:9\/v1$/m, 'snake_case, as in the file');
    assert.match(body.yaml, /^\s*api_key: "?\*{8}"?$/m, 'the key field masked');
    assert.match(body.yaml, /X-Team: "?\*{8}"?/, 'header values masked');
    assert.ok(!body.yaml.includes(PROVIDER_SECRET) && !body.yaml.includes(HEADER_SECRET));
    assert.ok(!/baseUrl|apiKey/.test(body.yaml), 'no internal camelCase name');
  });

  test('POST /admin/config/reload reads the file again: accepted, then a broken file refused with the reason, audited', async () => {
    const headers = { authorization: `Bearer ${admin}` };
    const file = join(gw.dir, 'switchyard.yaml');
    const before = (await (await fetch(`${gw.origin}/api/v1/admin/config`, { headers })).json()) as { generation: number };
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('http://127.0.0.1:9/v1', 'http://127.0.0.1:10/v1'));
    const ok = await fetch(`${gw.origin}/api/v1/admin/config/reload`, { method: 'POST', headers });
    assert.equal(ok.status, 200);
    const accepted = ((await ok.json()) as { data: { ok: boolean; generation: number } }).data;
    assert.deepEqual([accepted.ok, accepted.generation], [true, before.generation + 1]);
    const now = (await (await fetch(`${gw.origin}/api/v1/admin/config`, { headers })).json()) as {
      generation: number;
      yaml: string;
      last_reload: { ok: boolean };
    };
    assert.equal(now.generation, before.generation + 1);
    assert.equal(now.last_reload.ok, true);
    assert.match(now.yaml, /127\.0\.0\.1:10\/v1/, 'the file in force is the new one');

    writeFileSync(file, `${original}\nno_such_section: 1\n`);
    const bad = await fetch(`${gw.origin}/api/v1/admin/config/reload`, { method: 'POST', headers });
    assert.equal(bad.status, 200);
    const refused = ((await bad.json()) as { data: { ok: boolean; generation: number; error: string } }).data;
    assert.equal(refused.ok, false);
    assert.equal(refused.generation, before.generation + 1, 'the config in force stays');
    assert.match(refused.error, /no_such_section/);
    writeFileSync(file, original);

    const audit = (await (await fetch(`${gw.origin}/api/v1/admin/audit`, { headers })).json()) as {
      data: { action: string; details: { ok: boolean } }[];
    };
    const reloads = audit.data.filter((e) => e.action === 'config.reload').map((e) => e.details.ok);
    assert.deepEqual(reloads, [false, true], 'both audited, newest first');
  });

  test('is refused to a management key (403)', async () => {
    const m = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
    assert.equal((await fetch(`${gw.origin}/api/v1/admin/config`, { headers: { authorization: `Bearer ${m}` } })).status, 403);
    assert.equal(
      (await fetch(`${gw.origin}/api/v1/admin/config/reload`, { method: 'POST', headers: { authorization: `Bearer ${m}` } })).status,
      403,
    );
  });
});
