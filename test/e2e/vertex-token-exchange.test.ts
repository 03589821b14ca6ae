import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startGoogleStsEmulator, type GoogleStsEmulator } from '../emulators/google-sts-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Vertex AI with credentials that come from a token endpoint rather than a key the gateway
// signs with: a workload-identity (`external_account`) file whose `token_url` is a loopback
// STS. The access token is fetched once and reused across requests (google-auth-library's
// cache); Vertex's emulator takes only that token.

const SUBJECT_TOKEN = 'subject-token-from-the-workload';
const ACCESS_TOKEN = 'ya29.switchyard-test-access-token';

describe('Vertex AI with an access token from a token endpoint', () => {
  let sts: GoogleStsEmulator;
  let gemini: GeminiEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-vertex-sts-'));
    sts = await startGoogleStsEmulator(SUBJECT_TOKEN, ACCESS_TOKEN);
    gemini = await startGeminiEmulator({ vertexCredentials: { accessToken: ACCESS_TOKEN } });
    writeFileSync(join(dir, 'subject-token'), SUBJECT_TOKEN);
    const credentialsFile = join(dir, 'external-account.json');
    writeFileSync(
      credentialsFile,
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/provider',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: sts.tokenUrl,
        credential_source: { file: join(dir, 'subject-token') },
      }),
    );
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: vertex
    kind: vertex
    project: my-project
    region: europe-west4
    credentials_file: ${credentialsFile}
    base_url: ${gemini.origin}
models:
  - id: acme/gemini-vertex
    name: Gemini on Vertex
    context_length: 1000000
    endpoints:
      - provider: vertex
        model: gemini-2.5-flash
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
    });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await gemini.close();
    await sts.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the token is exchanged once, with the cloud-platform scope, and sent on every request', async () => {
    for (const text of ['one', 'two']) {
      gemini.enqueue({ text });
      const c = await client.chat.completions.create({ model: 'acme/gemini-vertex', messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(c.choices[0]!.message.content, text);
    }
    assert.deepEqual(
      gemini.requests.map((r) => r.headers.authorization),
      [`Bearer ${ACCESS_TOKEN}`, `Bearer ${ACCESS_TOKEN}`],
    );
    assert.equal(
      gemini.requests[0]!.path,
      '/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    assert.equal(sts.exchanges.length, 1, 'the access token is cached');
    assert.equal(sts.exchanges[0]!.subjectToken, SUBJECT_TOKEN);
    assert.match(sts.exchanges[0]!.scope ?? '', /https:\/\/www\.googleapis\.com\/auth\/cloud-platform/);
  });
});
