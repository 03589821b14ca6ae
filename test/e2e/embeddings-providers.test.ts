import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../emulators/bedrock-emulator.ts';
import { FAILING_INPUT, textTokens, textVector } from '../emulators/embedding-answers.ts';
import { startOpenAITasksEmulator, type OpenAITasksEmulator, type RecordedTaskRequest } from '../emulators/openai-tasks-emulator.ts';
import { sendJson } from '../emulators/emulator-http.ts';
import { writeTestServiceAccount } from '../support/google-service-account.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { countTokens } from '../../src/canonical/bpe-tokenizers.ts';

// Embeddings through the gateway to each vendor's own embedding API, over real HTTP:
// Gemini's batchEmbedContents (no token count: the gateway counts), Vertex's :predict (a
// bearer token the service account signed), Bedrock's InvokeModel for Titan and Cohere
// (SigV4), and an OpenAI-compatible server whose batch size the operator lowered. A request
// with more inputs than the vendor takes in one call is sent in parts and joined in input
// order, with one charge and one generation record; one part failing fails the attempt, and
// routing falls back as for any failure.

const inputs = (n: number, prefix = 'text'): string[] => Array.from({ length: n }, (_, i) => `${prefix} number ${i}${'x'.repeat(i % 7)}`);

/** Nano-USD per token of each model below. */
const PRICE = { gemini: 150n, vertex: 150n, titan: 20n, cohere: 100n, small: 1000n };

describe('embeddings through Gemini, Vertex, Bedrock and a small-batch OpenAI-compatible server', () => {
  let gemini: GeminiEmulator;
  let bedrock: BedrockEmulator;
  let openai: OpenAITasksEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  let dir: string;
  const savedEnv: Record<string, string | undefined> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-embed-'));
    const account = writeTestServiceAccount(dir, 'gateway');
    // The AWS chain reads the environment: these are the only credentials it may find.
    for (const name of [
      'AWS_SHARED_CREDENTIALS_FILE',
      'AWS_CONFIG_FILE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_EC2_METADATA_DISABLED',
    ]) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
    process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'none');
    process.env.AWS_CONFIG_FILE = join(dir, 'none');
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    gemini = await startGeminiEmulator({ apiKey: 'gemini-key', vertexCredentials: account });
    bedrock = await startBedrockEmulator();
    openai = await startOpenAITasksEmulator();
    gw = await startTestGateway({
      yaml: `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: gemini
    kind: google
    base_url: ${gemini.baseUrl}
    api_key: gemini-key
  - id: vertex
    kind: vertex
    project: my-project
    region: us-central1
    credentials_file: ${account.keyFile}
    base_url: ${gemini.origin}
  - id: bedrock
    kind: bedrock
    region: us-east-1
    base_url: ${bedrock.baseUrl}
  - id: gemini-query
    kind: google
    base_url: ${gemini.baseUrl}
    api_key: gemini-key
    options: { embedding_task_type: RETRIEVAL_QUERY }
  - id: bedrock-query
    kind: bedrock
    region: us-east-1
    base_url: ${bedrock.baseUrl}
    options: { embedding_task_type: SEARCH_QUERY }
  - id: small
    kind: openai
    base_url: ${openai.baseUrl}
    api_key: sk-small
    options: { max_embedding_inputs: 2 }
models:
  - id: acme/gemini-embed
    kind: embedding
    context_length: 2048
    endpoints:
      - { provider: gemini, model: gemini-embedding-001, pricing: { prompt: "0.00000015", completion: "0" } }
  - id: acme/vertex-gemini-embed
    kind: embedding
    context_length: 2048
    endpoints:
      - { provider: vertex, model: gemini-embedding-001, pricing: { prompt: "0.00000015", completion: "0" } }
  - id: acme/vertex-text-embed
    kind: embedding
    context_length: 2048
    endpoints:
      - { provider: vertex, model: text-embedding-005, pricing: { prompt: "0.00000015", completion: "0" } }
  - id: acme/titan
    kind: embedding
    context_length: 8192
    endpoints:
      - { provider: bedrock, model: "amazon.titan-embed-text-v2:0", pricing: { prompt: "0.00000002", completion: "0" } }
  - id: acme/cohere
    kind: embedding
    context_length: 512
    endpoints:
      - { provider: bedrock, model: cohere.embed-english-v3, pricing: { prompt: "0.0000001", completion: "0" } }
  - id: acme/query-embed
    kind: embedding
    context_length: 512
    endpoints:
      - { provider: gemini-query, model: gemini-embedding-001, pricing: { prompt: "0.00000015", completion: "0" } }
  - id: acme/cohere-query
    kind: embedding
    context_length: 512
    endpoints:
      - { provider: bedrock-query, model: cohere.embed-multilingual-v3, pricing: { prompt: "0.0000001", completion: "0" } }
  - id: acme/small
    kind: embedding
    context_length: 8192
    endpoints:
      - { provider: small, model: small-embed, pricing: { prompt: "0.000001", completion: "0" } }
`,
    });
    client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([gemini?.close(), bedrock?.close(), openai?.close()]);
    rmSync(dir, { recursive: true, force: true });
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  beforeEach(() => {
    gemini.reset();
    bedrock.reset();
    openai.requests.length = 0;
  });

  async function generation(id: string | null): Promise<Record<string, any>> {
    await gw.flush();
    const res = await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: Record<string, any> }).data;
  }

  function costOf(answer: { usage: unknown }): number {
    return (answer.usage as { cost: number }).cost;
  }

  test('Gemini: 150 inputs go as two batchEmbedContents calls (100 + 50), joined in order; no token count upstream, so the gateway counts and charges the inputs', async () => {
    const texts = inputs(150);
    const raw = await client.embeddings
      .create({ model: 'acme/gemini-embed', input: texts, dimensions: 768, encoding_format: 'float' })
      .withResponse();
    const answer = raw.data;
    assert.deepEqual(
      answer.data.map((d) => d.index),
      texts.map((_, i) => i),
    );
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      texts.map((t) => textVector(t, 768)),
    );
    const calls = gemini.requests.filter((r) => r.path.endsWith(':batchEmbedContents'));
    assert.equal(calls.length, 2);
    assert.deepEqual(
      calls.map((c) => c.body.requests.length).sort((a: number, b: number) => b - a),
      [100, 50],
    );
    assert.equal(calls[0]!.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.equal(calls[0]!.headers['x-goog-api-key'], 'gemini-key');
    assert.deepEqual(calls.find((c) => c.body.requests.length === 50)!.body.requests[0], {
      model: 'models/gemini-embedding-001',
      content: { parts: [{ text: texts[100] }] },
      outputDimensionality: 768,
    });
    // Counted with the gateway's tokenizer (o200k_base), every input charged.
    const expected = texts.reduce((n, t) => n + countTokens(t, 'o200k_base'), 0);
    assert.equal(answer.usage.prompt_tokens, expected);
    assert.equal(costOf(answer), Number(BigInt(expected) * PRICE.gemini) / 1e9);
    const record = await generation(raw.response.headers.get('x-generation-id'));
    assert.equal(record.tokens_prompt, expected);
    assert.equal(record.provider_name, 'gemini');
  });

  test('Gemini takes text only: token arrays are a 400 naming input, and nothing is sent', async () => {
    const res = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/gemini-embed', input: [[1, 2, 3]] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 400);
    assert.equal(res.json.error.param, 'input');
    assert.match(res.json.error.message, /text only/);
    assert.equal(gemini.requests.length, 0);
  });

  test('Vertex: gemini-embedding-001 takes one instance a call (three calls for three inputs), text-embedding-005 all three in one; the signed bearer token, token counts summed', async () => {
    const texts = ['alpha', 'beta gamma', 'delta epsilon zeta'];
    const one = await client.embeddings.create({ model: 'acme/vertex-gemini-embed', input: texts, encoding_format: 'float' });
    assert.deepEqual(
      one.data.map((d) => d.embedding),
      texts.map((t) => textVector(t)),
    );
    const calls = gemini.requests.filter((r) => r.path.endsWith(':predict'));
    assert.equal(calls.length, 3);
    assert.equal(calls[0]!.path, '/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-embedding-001:predict');
    assert.deepEqual(
      calls.map((c) => c.body.instances.length),
      [1, 1, 1],
    );
    assert.match(String(calls[0]!.headers.authorization), /^Bearer ey/);
    const tokens = texts.reduce((n, t) => n + textTokens(t), 0);
    assert.equal(one.usage.prompt_tokens, tokens);
    assert.equal(costOf(one), Number(BigInt(tokens) * PRICE.vertex) / 1e9);

    gemini.reset();
    const batch = await client.embeddings.create({
      model: 'acme/vertex-text-embed',
      input: texts,
      dimensions: 256,
      encoding_format: 'float',
    });
    assert.deepEqual(
      batch.data.map((d) => d.embedding),
      texts.map((t) => textVector(t, 256)),
    );
    assert.equal(gemini.requests.length, 1);
    assert.deepEqual(gemini.requests[0]!.body, {
      instances: texts.map((content) => ({ content })),
      parameters: { outputDimensionality: 256 },
    });
    assert.equal(batch.usage.prompt_tokens, tokens);
  });

  test('Bedrock Titan v2: one SigV4-signed InvokeModel per input, dimensions and normalize sent, the token-count header summed', async () => {
    const texts = ['first text', 'second', 'the third text here'];
    const raw = await client.embeddings
      .create({ model: 'acme/titan', input: texts, dimensions: 512, encoding_format: 'float' })
      .withResponse();
    const answer = raw.data;
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      texts.map((t) => textVector(t, 512)),
    );
    assert.equal(bedrock.requests.length, 3);
    for (const r of bedrock.requests) {
      assert.equal(r.path, `/model/${encodeURIComponent('amazon.titan-embed-text-v2:0')}/invoke`);
      assert.match(String(r.headers.authorization), /^AWS4-HMAC-SHA256 Credential=/);
    }
    assert.deepEqual(
      bedrock.requests.map((r) => r.body).sort((a, b) => a.inputText.localeCompare(b.inputText)),
      [...texts].sort().map((inputText) => ({ inputText, dimensions: 512, normalize: true })),
    );
    const tokens = texts.reduce((n, t) => n + textTokens(t), 0);
    assert.equal(answer.usage.prompt_tokens, tokens);
    assert.equal(costOf(answer), Number(BigInt(tokens) * PRICE.titan) / 1e9);
    const record = await generation(raw.response.headers.get('x-generation-id'));
    assert.equal(record.tokens_prompt, tokens, 'one generation record for the whole request');
  });

  test('Bedrock Titan: a dimensions Titan cannot produce is a 400 naming dimensions, nothing sent', async () => {
    const res = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/titan', input: 'x', dimensions: 100 },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 400);
    assert.equal(res.json.error.param, 'dimensions');
    assert.equal(bedrock.requests.length, 0);
  });

  test('Bedrock Cohere: 100 inputs go as 96 + 4 texts, input_type search_document, joined in order, usage summed', async () => {
    const texts = inputs(100, 'doc');
    const answer = await client.embeddings.create({ model: 'acme/cohere', input: texts, encoding_format: 'float' });
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      texts.map((t) => textVector(t)),
    );
    assert.deepEqual(
      bedrock.requests.map((r) => r.body.texts.length).sort((a: number, b: number) => b - a),
      [96, 4],
    );
    assert.equal(bedrock.requests[0]!.body.input_type, 'search_document');
    const tokens = texts.reduce((n, t) => n + textTokens(t), 0);
    assert.equal(answer.usage.prompt_tokens, tokens);
    assert.equal(costOf(answer), Number(BigInt(tokens) * PRICE.cohere) / 1e9);
  });

  test("a provider's options.embedding_task_type: Gemini's taskType, Cohere's input_type (lowercased)", async () => {
    await client.embeddings.create({ model: 'acme/query-embed', input: 'where is it', encoding_format: 'float' });
    assert.equal(gemini.requests.at(-1)!.body.requests[0].taskType, 'RETRIEVAL_QUERY');
    await client.embeddings.create({ model: 'acme/cohere-query', input: 'where is it', encoding_format: 'float' });
    assert.deepEqual(bedrock.requests.at(-1)!.body, { texts: ['where is it'], input_type: 'search_query' });
  });

  test('a batch size the operator lowered (options.max_embedding_inputs: 2): five inputs in three calls, in order, usage summed, one record', async () => {
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const raw = await client.embeddings.create({ model: 'acme/small', input: texts, encoding_format: 'float' }).withResponse();
    const answer = raw.data;
    // The emulator's vector is [length, index within its call, 0.5].
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      [
        [1, 0, 0.5],
        [2, 1, 0.5],
        [3, 0, 0.5],
        [4, 1, 0.5],
        [5, 0, 0.5],
      ],
    );
    assert.deepEqual(
      openai.requests.map((r) => r.json.input).sort((a, b) => a[0].length - b[0].length),
      [['a', 'bb'], ['ccc', 'dddd'], ['eeeee']],
    );
    // ceil(len/4) each: 1 + 1 + 1 + 1 + 2.
    assert.equal(answer.usage.prompt_tokens, 6);
    assert.equal(costOf(answer), Number(6n * PRICE.small) / 1e9);
    const record = await generation(raw.response.headers.get('x-generation-id'));
    assert.equal(record.tokens_prompt, 6);
  });

  test('one part failing fails the whole attempt: routing falls back to the next model for all of it, and only what served is charged', async () => {
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const texts = ['one', 'two', FAILING_INPUT, 'four'];
    const raw = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/cohere', models: ['acme/small'], input: texts, encoding_format: 'float' },
      { authorization: `Bearer ${gw.key}` },
    );
    // Cohere takes all four in one call, which fails; the fallback splits them in two.
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.json.model, 'acme/small');
    assert.deepEqual(
      raw.json.data.map((d: { embedding: number[] }) => d.embedding[0]),
      [3, 3, 5, 4],
    );
    assert.equal(openai.requests.length, 2);
    await gw.flush();
    const spent = before - (await gw.services.stores.accounts.balance(gw.accountId))!;
    // 1 + 1 + 2 + 1 tokens at the small model's price.
    assert.equal(spent, 5n * PRICE.small);
  });

  test("a part failing with no fallback is the request's error, in OpenAI's shape", async () => {
    openai.handle('/v1/embeddings', failOn(FAILING_INPUT));
    try {
      const res = await postJson(
        `${gw.baseUrl}/embeddings`,
        { model: 'acme/small', input: ['a', 'b', 'c', FAILING_INPUT, 'e'] },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.ok(res.status >= 500, `status ${res.status}`);
      assert.equal(typeof res.json.error.message, 'string');
      assert.ok(openai.requests.length >= 2, 'the parts before the failing one were sent');
    } finally {
      openai.handle('/v1/embeddings', failOn(null));
    }
  });
});

/** An OpenAI-compatible embeddings handler that answers 500 when an input equals `bad`. */
function failOn(bad: string | null): (req: RecordedTaskRequest, res: ServerResponse) => void {
  return (req, res) => {
    const input = req.json.input as string[];
    if (bad !== null && input.includes(bad))
      return sendJson(res, 500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null },
      });
    const tokens = input.reduce((n, x) => n + Math.max(1, Math.ceil(x.length / 4)), 0);
    sendJson(res, 200, {
      object: 'list',
      data: input.map((x, index) => ({ object: 'embedding', index, embedding: [x.length, index, 0.5] })),
      model: req.json.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
}
