import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { assertBudgetsStopSurface } from '../support/surface-budgets.ts';
import { emulatorVector, startOpenAITasksEmulator, type OpenAITasksEmulator } from '../emulators/openai-tasks-emulator.ts';
import { simVector } from '../../src/providers/sim/sim-tasks.ts';
import { sendJson } from '../emulators/emulator-http.ts';

describe('POST /v1/embeddings', () => {
  let gw: TestGateway;
  let upstream: OpenAITasksEmulator;
  let liar: OpenAITasksEmulator;
  let liarTokens: unknown = 0;
  let client: OpenAI;
  before(async () => {
    upstream = await startOpenAITasksEmulator();
    liar = await startOpenAITasksEmulator();
    liar.handle('/v1/embeddings', (_req, res) =>
      sendJson(res, 200, {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [1, 0] }],
        model: 'm',
        usage: { prompt_tokens: liarTokens, total_tokens: liarTokens },
      }),
    );
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}  - id: vendor
    kind: openai
    base_url: ${upstream.baseUrl}
    api_key: sk-upstream-secret
  - id: liar
    kind: openai
    base_url: ${liar.baseUrl}
models:
  - id: acme/liar-embed
    kind: embedding
    context_length: 8192
    endpoints:
      - { provider: liar, model: e, pricing: { prompt: "0.001", completion: "0" } }
  - id: acme/embed
    kind: embedding
    context_length: 8192
    endpoints:
      - provider: vendor
        model: vendor-embed-v2
        pricing: { prompt: "0.000001", completion: "0" }
  - id: acme/paid-embed
    kind: embedding
    context_length: 8192
    endpoints:
      - provider: sim
        model: sim-embed
        pricing: { prompt: "0.0001", completion: "0" }
`,
    });
    client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl });
  });
  after(async () => {
    await liar.close();
    await upstream.close();
    await gw?.close();
  });

  test('the sim embeds with no credentials: deterministic unit vectors, usage, cost and a generation id', async () => {
    const raw = await client.embeddings.create({ model: 'switchyard/sim-embed', input: ['hello world', 'second'] }).withResponse();
    const answer = raw.data;
    assert.equal(answer.object, 'list');
    assert.equal(answer.model, 'switchyard/sim-embed');
    assert.deepEqual(
      answer.data.map((d) => [d.object, d.index]),
      [
        ['embedding', 0],
        ['embedding', 1],
      ],
    );
    // The SDK asks for base64 (float32) and decodes it: the sim's vector to float32 precision.
    const expected = simVector('hello world', 256);
    assert.equal(answer.data[0]!.embedding.length, 256);
    answer.data[0]!.embedding.forEach((x, i) => assert.ok(Math.abs(x - expected[i]!) < 1e-6, `component ${i}`));
    const norm = Math.sqrt(answer.data[1]!.embedding.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-4, `unit vector (norm ${norm})`);
    assert.ok(answer.usage.prompt_tokens > 0);
    assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens);
    const id = raw.response.headers.get('x-generation-id');
    assert.match(id ?? '', /^gen-/);
    await gw.flush();
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as { data: Record<string, unknown> };
    assert.equal(record.data.model, 'switchyard/sim-embed');
    assert.equal(record.data.tokens_prompt, answer.usage.prompt_tokens);
  });

  test("base64 and dimensions: the SDK decodes the gateway's float32 base64 to the same vector", async () => {
    const floats = await client.embeddings.create({ model: 'switchyard/sim-embed', input: 'abc', dimensions: 8, encoding_format: 'float' });
    // The SDK asks for base64 by default and decodes it itself.
    const decoded = await client.embeddings.create({ model: 'switchyard/sim-embed', input: 'abc', dimensions: 8 });
    assert.equal(floats.data[0]!.embedding.length, 8);
    assert.deepEqual(
      decoded.data[0]!.embedding.map((x) => Math.round(x * 1e5)),
      floats.data[0]!.embedding.map((x) => Math.round(x * 1e5)),
    );
    const rawB64 = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'switchyard/sim-embed', input: 'abc', dimensions: 8, encoding_format: 'base64' },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(typeof rawB64.json.data[0].embedding, 'string');
    assert.equal(Buffer.from(rawB64.json.data[0].embedding, 'base64').length, 32);
  });

  test('an OpenAI-compatible upstream: the request it got, vectors put back in input order, its usage charged', async () => {
    upstream.requests.length = 0;
    const answer = await client.embeddings.create({
      model: 'acme/embed',
      input: ['one', 'three', 'fifteen'],
      encoding_format: 'float',
      user: 'u-1',
    });
    assert.deepEqual(
      answer.data.map((d) => d.embedding),
      [emulatorVector('one', 0), emulatorVector('three', 1), emulatorVector('fifteen', 2)],
    );
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/embeddings');
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret');
    assert.deepEqual(sent.json, { model: 'vendor-embed-v2', input: ['one', 'three', 'fifteen'], encoding_format: 'float', user: 'u-1' });
    // The emulator counts ceil(len/4) tokens per input: 1 + 2 + 2, at $0.000001 a token.
    assert.equal(answer.usage.prompt_tokens, 5);
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.000005);
    const tokens = await client.embeddings.create({
      model: 'acme/embed',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: 'float',
    });
    assert.deepEqual(upstream.requests.at(-1)!.json.input, [
      [1, 2, 3],
      [4, 5],
    ]);
    assert.equal(tokens.data.length, 2);
  });

  test("bad input is a 400 in OpenAI's shape naming the parameter", async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const cases: [unknown, string][] = [
      [{ model: 'switchyard/sim-embed' }, 'input'],
      [{ model: 'switchyard/sim-embed', input: '' }, 'input'],
      [{ model: 'switchyard/sim-embed', input: [] }, 'input'],
      [{ model: 'switchyard/sim-embed', input: ['a', 1] }, 'input[1]'],
      [{ model: 'switchyard/sim-embed', input: [[1, -2]] }, 'input[0][1]'],
      [{ model: 'switchyard/sim-embed', input: 'a', encoding_format: 'int8' }, 'encoding_format'],
      [{ model: 'switchyard/sim-embed', input: 'a', dimensions: 0 }, 'dimensions'],
      [{ model: 'switchyard/sim-embed', input: 'a', temperature: 1 }, 'temperature'],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(`${gw.baseUrl}/embeddings`, body, auth);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.param, param, JSON.stringify(body));
    }
  });

  test('a chat model on /embeddings and an embedding model on chat are clear 400s naming the right endpoint', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const onEmbeddings = await postJson(`${gw.baseUrl}/embeddings`, { model: 'switchyard/sim-fast', input: 'x' }, auth);
    assert.equal(onEmbeddings.status, 400);
    assert.equal(onEmbeddings.json.error.param, 'model');
    assert.match(onEmbeddings.json.error.message, /chat model.*\/v1\/chat\/completions/);
    const onChat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-embed', messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    assert.equal(onChat.status, 400);
    assert.match(onChat.json.error.message, /embedding model.*\/v1\/embeddings/);
  });

  test("GET /v1/models lists embedding models with OpenRouter's modalities, and filters by output modality", async () => {
    const all = (await (await fetch(`${gw.baseUrl}/models`)).json()) as {
      data: { id: string; kind: string; architecture: { input_modalities: string[]; output_modalities: string[] } }[];
    };
    const embed = all.data.find((m) => m.id === 'switchyard/sim-embed')!;
    assert.equal(embed.kind, 'embedding');
    assert.deepEqual(embed.architecture.output_modalities, ['embeddings']);
    assert.deepEqual(embed.architecture.input_modalities, ['text']);
    const only = (await (await fetch(`${gw.baseUrl}/models?output_modalities=embeddings`)).json()) as { data: { id: string }[] };
    assert.deepEqual(only.data.map((m) => m.id).sort(), ['acme/embed', 'acme/liar-embed', 'acme/paid-embed', 'switchyard/sim-embed']);
    const bad = await fetch(`${gw.baseUrl}/models?output_modalities=smell`);
    assert.equal(bad.status, 400);
  });

  test('a balance and a key limit stop embeddings exactly as they stop chat', async () => {
    await assertBudgetsStopSurface(gw, async (key) => {
      const res = await postJson(
        `${gw.baseUrl}/embeddings`,
        { model: 'acme/paid-embed', input: 'some words to embed here' },
        { authorization: `Bearer ${key}` },
      );
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('the hold covers every input up to the context length: many long inputs are not held as one', async () => {
    // Four token arrays of 8,000 tokens at $0.0001 a token cost $3.20; one context (8,192) is $0.82.
    const { key } = await gw.services.accountService.createKey({ accountId: gw.accountId, limitUsd: '1' });
    const input = Array.from({ length: 4 }, () => Array.from({ length: 8000 }, (_, i) => i % 1000));
    const res = await postJson(`${gw.baseUrl}/embeddings`, { model: 'acme/paid-embed', input }, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 402, res.text);
    const one = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/paid-embed', input: input.slice(0, 1) },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.usage.prompt_tokens, 8000);
    // Inputs that each fit the context are served however long they are together (a RAG batch).
    const batch = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'switchyard/sim-embed', input },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.json.data.length, 4);
    const tooLong = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'switchyard/sim-embed', input: [[1], Array.from({ length: 9000 }, () => 7)] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(tooLong.status, 400, tooLong.text);
    assert.equal(tooLong.json.error.param, 'input');
  });

  test('the sim refuses to draw more than a million numbers in one answer (it would stall the event loop for seconds)', async () => {
    const res = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'switchyard/sim-embed', input: Array.from({ length: 64 }, () => 'x'), dimensions: 65_536 },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.equal(res.json.error.param, 'dimensions');
    const ok = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'switchyard/sim-embed', input: Array.from({ length: 256 }, () => 'x'), dimensions: 4096 },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(ok.status, 200);
  });

  test("an upstream's negative or fractional token count never credits the account nor breaks the charge", async () => {
    const balance = async (): Promise<bigint> => (await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos;
    liarTokens = -5_000_000;
    const before = await balance();
    const negative = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/liar-embed', input: 'x' },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(negative.status, 200, negative.text);
    assert.equal(negative.json.usage.prompt_tokens, 0);
    await gw.flush();
    assert.ok((await balance()) <= before, 'no credit from a negative count');
    liarTokens = 1.5;
    const fractional = await postJson(
      `${gw.baseUrl}/embeddings`,
      { model: 'acme/liar-embed', input: 'x' },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(fractional.status, 200, fractional.text);
    assert.equal(fractional.json.usage.prompt_tokens, 2);
    assert.equal(fractional.json.usage.cost, 0.002);
  });
});
