import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { writeTestServiceAccount } from '../support/google-service-account.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The official openai client through switchyard to Vertex AI: Claude (rawPredict /
// streamRawPredict) and Gemini (generateContent / streamGenerateContent), each provider with
// its project, region and service-account key file. The emulators verify the bearer JWT the
// key signs; a provider holding another account's key is refused. Nothing reaches Google.

describe('the official openai client through switchyard to Vertex AI', () => {
  let claude: AnthropicEmulator;
  let gemini: GeminiEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-vertex-'));
    const account = writeTestServiceAccount(dir, 'gateway');
    const stranger = writeTestServiceAccount(dir, 'stranger');
    claude = await startAnthropicEmulator({ vertexCredentials: account });
    gemini = await startGeminiEmulator({ vertexCredentials: account });
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: vertex-claude
    kind: vertex
    profile: anthropic
    project: my-project
    region: us-east5
    credentials_file: ${account.keyFile}
    base_url: ${claude.baseUrl}
  - id: vertex-gemini
    kind: vertex
    project: my-project
    region: global
    credentials_file: ${account.keyFile}
    base_url: ${gemini.origin}
  - id: vertex-stranger
    kind: vertex
    project: my-project
    region: global
    credentials_file: ${stranger.keyFile}
    base_url: ${gemini.origin}
models:
  - id: acme/claude-vertex
    name: Claude on Vertex
    context_length: 200000
    capabilities: [text, tool_calling, streaming]
    endpoints:
      - provider: vertex-claude
        model: claude-sonnet-4-5@20250929
        max_output_tokens: 8192
        pricing: { prompt: "0.000003", completion: "0.000015" }
  - id: acme/gemini-vertex
    name: Gemini on Vertex
    context_length: 1000000
    capabilities: [text, streaming]
    endpoints:
      - provider: vertex-gemini
        model: gemini-2.5-flash
        pricing: { prompt: "0.000001", completion: "0.000002" }
  - id: acme/gemini-stranger
    name: Gemini on Vertex with a key Vertex does not know
    context_length: 1000000
    endpoints:
      - provider: vertex-stranger
        model: gemini-2.5-flash
        pricing: { prompt: "0.000001", completion: "0.000002" }
`,
    });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await claude.close();
    await gemini.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    claude.reset();
    gemini.reset();
  });

  test('Claude on Vertex, not streamed: rawPredict with the Vertex envelope; usage and the exact cost', async () => {
    claude.enqueue({ text: 'Paris.', usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 100 } });
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const c = await client.chat.completions.create({
      model: 'acme/claude-vertex',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    assert.equal(c.choices[0]!.message.content, 'Paris.');
    assert.equal(c.usage!.prompt_tokens, 110);
    const r = claude.requests[0]!;
    assert.equal(
      r.path,
      `/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/${encodeURIComponent('claude-sonnet-4-5@20250929')}:rawPredict`,
    );
    assert.equal(r.body.anthropic_version, 'vertex-2023-10-16');
    assert.equal('model' in r.body, false);
    assert.equal(r.headers['x-api-key'], undefined);
    await gw.flush();
    // 10 × 3000 + 100 × 300 (cache reads at 0.1x) + 3 × 15000 nano-USD
    assert.equal(before - (await gw.services.stores.accounts.balance(gw.accountId))!, 10n * 3000n + 100n * 300n + 3n * 15000n);
  });

  test('Claude on Vertex, streamed: streamRawPredict, the text in pieces, usage last', async () => {
    claude.enqueue({ text: 'one two three', chunks: 3, usage: { input_tokens: 7, output_tokens: 3 } });
    const stream = await client.chat.completions.create({
      model: 'acme/claude-vertex',
      messages: [{ role: 'user', content: 'Count.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let pieces = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) {
        text += delta;
        pieces++;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'one two three');
    assert.ok(pieces >= 3);
    assert.equal(usage?.completion_tokens, 3);
    assert.match(claude.requests[0]!.path, /:streamRawPredict$/);
    assert.equal(claude.requests[0]!.body.stream, true);
  });

  test('Gemini on Vertex (global region), streamed and not: the Gemini body under the Vertex path', async () => {
    gemini.enqueue({ text: 'Hello there.', usage: { promptTokenCount: 5, candidatesTokenCount: 2 } }, { text: 'Hello again.', chunks: 2 });
    const c = await client.chat.completions.create({ model: 'acme/gemini-vertex', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(c.choices[0]!.message.content, 'Hello there.');
    assert.equal(c.usage!.prompt_tokens, 5);
    const stream = await client.chat.completions.create({
      model: 'acme/gemini-vertex',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Hello again.');
    assert.deepEqual(
      gemini.requests.map((r) => r.path),
      [
        '/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
        '/v1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      ],
    );
    assert.deepEqual(gemini.requests[0]!.body.contents, [{ role: 'user', parts: [{ text: 'Hi' }] }]);
    assert.equal(gemini.requests[0]!.headers['x-goog-api-key'], undefined);
  });

  test("each Vertex flavour lists its publisher's parameters (Gemini on Vertex without the penalties Gemini 2.5 refuses)", async () => {
    const params = async (model: string): Promise<string[]> => {
      const res = await fetch(`${gw.origin}/api/v1/models/${model}/endpoints`, { headers: { authorization: `Bearer ${gw.key}` } });
      assert.equal(res.status, 200);
      return ((await res.json()) as any).data.endpoints[0].supported_parameters as string[];
    };
    const gem = await params('acme/gemini-vertex');
    assert.ok(gem.includes('top_k') && gem.includes('seed') && gem.includes('tools'));
    assert.equal(gem.includes('presence_penalty') || gem.includes('frequency_penalty'), false);
    const cla = await params('acme/claude-vertex');
    assert.ok(cla.includes('top_k') && cla.includes('parallel_tool_calls'));
    assert.equal(cla.includes('seed'), false);
  });

  test('an upstream that repeats the request headers in its 400: the client never sees the bearer token', async () => {
    claude.enqueue({ fault: 'echo-headers', status: 400 });
    const err = await client.chat.completions.create({ model: 'acme/claude-vertex', messages: [{ role: 'user', content: 'Hi' }] }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(err.status, 400);
    const token = String(claude.requests[0]!.headers.authorization).slice('Bearer '.length);
    const seen = JSON.stringify(err.error);
    assert.match(seen, /received headers/, 'the echo reached the client, scrubbed');
    for (const piece of token.split('.')) assert.equal(seen.includes(piece), false, 'no part of the token');
  });

  test('a provider holding a key Vertex does not know gets 401; the client a 502 with no token in it, nothing charged', async () => {
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const err = await client.chat.completions.create({ model: 'acme/gemini-stranger', messages: [{ role: 'user', content: 'Hi' }] }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(err.status, 502);
    assert.equal(gemini.requests.length, 1, 'the request reached Vertex with its bearer token');
    const sent = String(gemini.requests[0]!.headers.authorization).slice('Bearer '.length);
    assert.doesNotMatch(JSON.stringify(err.error), new RegExp(sent.slice(-20)));
    await gw.flush();
    assert.equal(await gw.services.stores.accounts.balance(gw.accountId), before);
  });
});
