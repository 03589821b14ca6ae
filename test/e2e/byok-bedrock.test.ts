import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { call } from '../support/admin-client.ts';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../emulators/bedrock-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// BYOK on Bedrock: the account's own AWS key pair signs the request (SigV4, checked by the
// emulator against TEST_AWS_CREDENTIALS), not the operator's Bedrock API key; a pair of the
// wrong shape, or whose secret is wrong (the check's signed ListFoundationModels), is refused
// when stored; an upstream 403 on a stored pair is answered as byok_key_rejected.

const OPERATOR_BEDROCK_KEY = 'operator-bedrock-api-key-7Hq2';
const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('bring your own key on Bedrock (an AWS key pair, SigV4)', () => {
  let emu: BedrockEmulator;
  let gw: TestGateway;
  let mgmt: string;
  before(async () => {
    emu = await startBedrockEmulator({ apiKey: OPERATOR_BEDROCK_KEY });
    gw = await startTestGateway({
      credits: '0',
      env: { BYOK_MASTER: randomBytes(32).toString('base64') },
      yaml: `sim: false
byok: { master_key: "env:BYOK_MASTER" }
providers:
  - id: bedrock
    kind: bedrock
    region: us-east-1
    api_key: "${OPERATOR_BEDROCK_KEY}"
    base_url: ${emu.baseUrl}
models:
  - id: acme/claude-bedrock
    context_length: 200000
    capabilities: [text]
    endpoints:
      - provider: bedrock
        model: ${MODEL}
        pricing: { prompt: "0.000003", completion: "0.000015" }
`,
    });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  const ask = () =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/claude-bedrock', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );

  test('a key pair of the wrong shape is refused when stored, naming what is wrong', async () => {
    const res = await call('PUT', `${gw.origin}/api/v1/byok/bedrock`, mgmt, {
      key: { access_key_id: 'not an id', secret_access_key: 'x' },
      mode: 'only',
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'byok_key_invalid');
    assert.match(res.json.error.message, /access_key_id/);
  });

  test("the account's key pair signs the request; $0 credits; the operator's API key is not sent", async () => {
    const put = await call('PUT', `${gw.origin}/api/v1/byok/bedrock`, mgmt, {
      key: { access_key_id: TEST_AWS_CREDENTIALS.accessKeyId, secret_access_key: TEST_AWS_CREDENTIALS.secretAccessKey },
      mode: 'only',
      label: 'aws',
    });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.data.last_four, TEST_AWS_CREDENTIALS.accessKeyId.slice(-4));
    assert.equal(JSON.stringify(put.json).includes(TEST_AWS_CREDENTIALS.secretAccessKey), false);
    const res = await ask();
    assert.equal(res.status, 200, res.text);
    const auth = String(emu.requests.at(-1)!.headers.authorization);
    assert.match(auth, new RegExp(`^AWS4-HMAC-SHA256 Credential=${TEST_AWS_CREDENTIALS.accessKeyId}/`));
    assert.equal(
      emu.requests.some((r) => String(r.headers.authorization).includes(OPERATOR_BEDROCK_KEY)),
      false,
    );
  });

  test('a pair with the wrong secret is refused when stored: the SigV4-signed ListFoundationModels names the bad signature', async () => {
    emu.reset();
    const put = await call('PUT', `${gw.origin}/api/v1/byok/bedrock`, mgmt, {
      key: JSON.stringify({ access_key_id: TEST_AWS_CREDENTIALS.accessKeyId, secret_access_key: 'wrong/secret/key/of/the/account' }),
      mode: 'only',
    });
    assert.equal(put.status, 400, JSON.stringify(put.json));
    assert.equal(put.json.error.code, 'byok_key_invalid');
    assert.equal(put.json.error.metadata.reason, 'bad_signature');
    assert.equal(JSON.stringify(put.json).includes('wrong/secret/key/of/the/account'), false);
    assert.deepEqual(
      emu.requests.map((r) => `${r.method} ${r.path}`),
      ['GET /foundation-models'],
    );
  });

  test('a stored pair the upstream later refuses (403): answered as byok_key_rejected, no operator key', async () => {
    emu.reset();
    emu.enqueue({ fault: 'status', status: 403 });
    const res = await ask();
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.error.code, 'byok_key_rejected');
    assert.equal(emu.requests.length, 1);
    assert.equal(String(emu.requests[0]!.headers.authorization).includes(OPERATOR_BEDROCK_KEY), false);
  });
});
