import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../support/admin-client.ts';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { writeTestServiceAccount } from '../support/google-service-account.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// BYOK on Vertex AI: the account stores its own service account's JSON key; its requests carry
// a token that key signs (the emulator verifies it with the account's public key, and refuses
// the operator's), under the account's own project. A JSON that is not a service account is
// refused when stored.

describe("bring your own key on Vertex AI (the account's service account)", () => {
  let gemini: GeminiEmulator;
  let gw: TestGateway;
  let dir: string;
  let mgmt: string;
  let own: Record<string, unknown>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-byok-vertex-'));
    const account = writeTestServiceAccount(dir, 'tenant');
    const operator = writeTestServiceAccount(dir, 'operator');
    own = JSON.parse(readFileSync(account.keyFile, 'utf8')) as Record<string, unknown>;
    gemini = await startGeminiEmulator({ vertexCredentials: account });
    // The key is checked when stored by its token exchange: at the emulator's token endpoint.
    own.token_uri = `${gemini.origin}/token`;
    gw = await startTestGateway({
      credits: '0',
      env: { BYOK_MASTER: randomBytes(32).toString('base64') },
      yaml: `sim: false
byok: { master_key: "env:BYOK_MASTER" }
providers:
  - id: vertex-gemini
    kind: vertex
    project: operator-project
    region: global
    credentials_file: ${operator.keyFile}
    base_url: ${gemini.origin}
models:
  - id: acme/gemini-vertex
    context_length: 1000000
    capabilities: [text]
    endpoints:
      - provider: vertex-gemini
        model: gemini-2.5-flash
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
    });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
  });
  after(async () => {
    await gw.close();
    await gemini.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = () =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/gemini-vertex', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );

  test("the operator's own service account is refused here (the baseline)", async () => {
    await gw.services.accountService.addCredits(gw.accountId, '1', 'test');
    const res = await ask();
    assert.notEqual(res.status, 200);
    await gw.flush();
    await gw.services.accountService.adjustCredits(gw.accountId, '-1', 'test');
  });

  test('a JSON that is not a service account is refused when stored', async () => {
    const res = await call('PUT', `${gw.origin}/api/v1/byok/vertex-gemini`, mgmt, {
      key: { type: 'authorized_user', client_email: 'x@y' },
      mode: 'only',
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'byok_key_invalid');
    assert.match(res.json.error.message, /service_account/);
  });

  test("the account's service account signs the token, under its own project, with $0 credits", async () => {
    const put = await call('PUT', `${gw.origin}/api/v1/byok/vertex-gemini`, mgmt, { key: own, mode: 'only' });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.data.last_four, String(own.private_key_id).slice(-4));
    assert.equal(JSON.stringify(put.json).includes(String(own.private_key).slice(40, 80)), false);
    gemini.reset();
    const res = await ask();
    assert.equal(res.status, 200, res.text);
    assert.match(gemini.requests[0]!.path, /\/projects\/switchyard-test-project\//);
  });
});
