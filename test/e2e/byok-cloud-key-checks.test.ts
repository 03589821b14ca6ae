import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../support/admin-client.ts';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../emulators/bedrock-emulator.ts';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { writeTestServiceAccount } from '../support/google-service-account.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// BYOK keys for Bedrock and Vertex are checked by a real authenticated call when stored
// (docs/byok.md): Bedrock's ListFoundationModels SigV4-signed with the account's pair (the
// emulator recomputes the signature as AWS does), Vertex's OAuth JWT-bearer exchange at the
// service account's token endpoint (the emulator verifies the assertion with the account's
// public key). A refusal is 400 byok_key_invalid naming why (`metadata.reason`), nothing is
// stored; the call is bounded by the provider's timeout.

const EXPIRED_SESSION = 'FwoGZXIvYXdzEXPIRED-session-token-of-the-test';
const TIMEOUT_MS = 800;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('BYOK keys for Bedrock and Vertex, checked by a signed call when stored', () => {
  let bedrock: BedrockEmulator;
  let gemini: GeminiEmulator;
  let gw: TestGateway;
  let mgmt: string;
  let dir: string;
  let own: Record<string, unknown>;
  let stranger: Record<string, unknown>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-byok-checks-'));
    const account = writeTestServiceAccount(dir, 'tenant');
    const other = writeTestServiceAccount(dir, 'stranger');
    bedrock = await startBedrockEmulator({ expiredSessionToken: EXPIRED_SESSION });
    gemini = await startGeminiEmulator({ vertexCredentials: account });
    own = { ...(JSON.parse(readFileSync(account.keyFile, 'utf8')) as Record<string, unknown>), token_uri: `${gemini.origin}/token` };
    stranger = { ...(JSON.parse(readFileSync(other.keyFile, 'utf8')) as Record<string, unknown>), token_uri: `${gemini.origin}/token` };
    const dead = await closedPort();
    gw = await startTestGateway({
      env: { BYOK_MASTER: randomBytes(32).toString('base64') },
      yaml: `sim: false
byok: { master_key: "env:BYOK_MASTER" }
providers:
  - { id: bedrock, kind: bedrock, region: us-east-1, base_url: "${bedrock.baseUrl}", timeout_ms: ${TIMEOUT_MS} }
  - { id: bedrock-dead, kind: bedrock, region: us-east-1, base_url: "http://127.0.0.1:${dead}" }
  - { id: vertex, kind: vertex, project: operator-project, region: global, base_url: "${gemini.origin}", timeout_ms: ${TIMEOUT_MS} }
models:
  - id: acme/claude-bedrock
    context_length: 200000
    endpoints:
      - { provider: bedrock, model: "anthropic.claude-sonnet-4-5-20250929-v1:0", pricing: { prompt: "0.000003", completion: "0.000015" } }
      - { provider: bedrock-dead, model: "anthropic.claude-sonnet-4-5-20250929-v1:0", pricing: { prompt: "0.000003", completion: "0.000015" } }
  - id: acme/gemini-vertex
    context_length: 1000000
    endpoints:
      - { provider: vertex, model: gemini-2.5-flash, pricing: { prompt: "0.000001", completion: "0.000002" } }
`,
    });
    mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'm', management: true })).key;
  });
  after(async () => {
    await gw?.close();
    await bedrock?.close();
    await gemini?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const put = (provider: string, key: unknown) => call('PUT', `${gw.origin}/api/v1/byok/${provider}`, mgmt, { key, mode: 'only' });
  const stored = async () =>
    ((await call('GET', `${gw.origin}/api/v1/byok`, mgmt)).json.data as Array<{ provider: string }>).map((k) => k.provider).sort();
  const pair = (overrides: Record<string, string> = {}) => ({
    access_key_id: TEST_AWS_CREDENTIALS.accessKeyId,
    secret_access_key: TEST_AWS_CREDENTIALS.secretAccessKey,
    ...overrides,
  });
  const refusedFor = (res: { status: number; json: any }, reason: string) => {
    assert.equal(res.status, 400, JSON.stringify(res.json));
    assert.equal(res.json.error.code, 'byok_key_invalid');
    assert.equal(res.json.error.metadata.reason, reason, res.json.error.message);
  };

  describe('Bedrock: ListFoundationModels, SigV4-signed with the account pair', () => {
    test('a good pair is stored after one signed GET /foundation-models the emulator verified', async () => {
      bedrock.reset();
      const res = await put('bedrock', pair());
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.deepEqual(
        bedrock.requests.map((r) => `${r.method} ${r.path}`),
        ['GET /foundation-models'],
      );
      assert.match(
        String(bedrock.requests[0]!.headers.authorization),
        new RegExp(`^AWS4-HMAC-SHA256 Credential=${TEST_AWS_CREDENTIALS.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request`),
      );
      assert.deepEqual(await stored(), ['bedrock']);
      assert.equal((await call('DELETE', `${gw.origin}/api/v1/byok/bedrock`, mgmt)).status, 200);
    });

    test('a wrong secret: bad_signature, named, never echoed, nothing stored', async () => {
      const res = await put('bedrock', pair({ secret_access_key: 'not/the/secret/of/this/key/id' }));
      refusedFor(res, 'bad_signature');
      assert.match(res.json.error.message, /InvalidSignatureException/);
      assert.equal(JSON.stringify(res.json).includes('not/the/secret/of/this/key/id'), false);
      assert.deepEqual(await stored(), []);
    });

    test('an access key id AWS does not know: unknown_key', async () => {
      refusedFor(await put('bedrock', pair({ access_key_id: 'AKIAUNKNOWNTOTHEEMULATOR' })), 'unknown_key');
    });

    test('an expired session token: expired', async () => {
      const res = await put('bedrock', pair({ session_token: EXPIRED_SESSION }));
      refusedFor(res, 'expired');
      assert.match(res.json.error.message, /ExpiredTokenException/);
    });

    test('a control plane that does not answer: timeout, within the provider timeout_ms', async () => {
      bedrock.reset();
      bedrock.enqueue({ fault: 'hang' });
      const started = performance.now();
      const res = await put('bedrock', pair());
      const took = performance.now() - started;
      refusedFor(res, 'timeout');
      assert.ok(took >= TIMEOUT_MS - 50 && took < TIMEOUT_MS + 4000, `took ${took} ms`);
      assert.deepEqual(await stored(), []);
    });

    test('a control plane nothing listens on: unreachable', async () => {
      refusedFor(await put('bedrock-dead', pair()), 'unreachable');
    });
  });

  describe("Vertex: the OAuth JWT-bearer exchange at the service account's token_uri", () => {
    test('a good service account is stored after one token exchange the emulator verified', async () => {
      gemini.reset();
      const res = await put('vertex', own);
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.deepEqual(
        gemini.requests.map((r) => `${r.method} ${r.path}`),
        ['POST /token'],
      );
      assert.deepEqual(await stored(), ['vertex']);
      assert.equal((await call('DELETE', `${gw.origin}/api/v1/byok/vertex`, mgmt)).status, 200);
    });

    test("the account's email with another key (a deleted or foreign key): bad_signature", async () => {
      refusedFor(await put('vertex', { ...stranger, client_email: own.client_email }), 'bad_signature');
      assert.deepEqual(await stored(), []);
    });

    test('a service account Google does not know: unknown_key', async () => {
      refusedFor(await put('vertex', stranger), 'unknown_key');
    });

    test('a token_uri on a host the operator did not configure is never called: shape', async () => {
      gemini.reset();
      const res = await put('vertex', { ...own, token_uri: 'http://169.254.169.254/token' });
      refusedFor(res, 'shape');
      assert.match(res.json.error.message, /token_uri/);
      assert.equal(gemini.requests.length, 0);
    });

    test('a token endpoint that does not answer: timeout, within the provider timeout_ms', async () => {
      gemini.reset();
      gemini.enqueue({ fault: 'hang' });
      const started = performance.now();
      const res = await put('vertex', own);
      refusedFor(res, 'timeout');
      assert.ok(performance.now() - started < TIMEOUT_MS + 4000);
    });
  });
});
