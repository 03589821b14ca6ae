import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI } from '@google/genai';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { assertBudgetsStopSurface } from '../support/surface-budgets.ts';
import { simVector } from '../../src/providers/sim/sim-tasks.ts';

// Gemini's embedContent and batchEmbedContents for any embedding model of the catalog,
// through the official @google/genai SDK and raw HTTP, on the one path every surface takes.

describe('Gemini embedContent and batchEmbedContents', () => {
  let gw: TestGateway;
  let ai: GoogleGenAI;
  before(async () => {
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}models:
  - id: acme/paid-embed
    kind: embedding
    context_length: 8192
    endpoints:
      - provider: sim
        model: sim-embed
        pricing: { prompt: "0.0001", completion: "0" }
`,
    });
    ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.origin, apiVersion: 'v1beta' } });
  });
  after(() => gw?.close());

  test('the SDK embeds several contents (batchEmbedContents) in order, with outputDimensionality', async () => {
    const res = await ai.models.embedContent({
      model: 'switchyard/sim-embed',
      contents: ['first text', 'second text'],
      config: { outputDimensionality: 16 },
    });
    assert.equal(res.embeddings?.length, 2);
    assert.deepEqual(res.embeddings[0]!.values, simVector('first text', 16));
    assert.deepEqual(res.embeddings[1]!.values, simVector('second text', 16));
  });

  test('raw embedContent with ?key= and the record of its charge', async () => {
    const res = await postJson(`${gw.origin}/v1beta/models/switchyard%2Fsim-embed:embedContent?key=${gw.key}`, {
      content: { parts: [{ text: 'one' }, { text: 'two' }] },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.embedding.values, simVector('one\ntwo', 256));
    const id = res.headers.get('x-generation-id');
    await gw.flush();
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as { data: Record<string, unknown> };
    assert.equal(record.data.model, 'switchyard/sim-embed');
  });

  test("errors in Google's shape: a chat model, a model mismatch in a batch, an image part", async () => {
    const auth = { 'x-goog-api-key': gw.key };
    const chat = await postJson(
      `${gw.origin}/v1beta/models/switchyard/sim-fast:embedContent`,
      { content: { parts: [{ text: 'x' }] } },
      auth,
    );
    assert.equal(chat.status, 400);
    assert.equal(chat.json.error.status, 'INVALID_ARGUMENT');
    assert.match(chat.json.error.message, /is a chat model and cannot serve an embedding request/);
    const embedAsChat = await postJson(
      `${gw.origin}/v1beta/models/switchyard/sim-embed:generateContent`,
      { contents: [{ parts: [{ text: 'x' }] }] },
      auth,
    );
    assert.equal(embedAsChat.status, 400);
    assert.match(embedAsChat.json.error.message, /:embedContent/, 'a Gemini client is told the Gemini method too');
    const mismatch = await postJson(
      `${gw.origin}/v1beta/models/switchyard/sim-embed:batchEmbedContents`,
      { requests: [{ model: 'models/other/model', content: { parts: [{ text: 'x' }] } }] },
      auth,
    );
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.json.error.message, /requests\[0\]\.model/);
    const image = await postJson(
      `${gw.origin}/v1beta/models/switchyard/sim-embed:embedContent`,
      { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } },
      auth,
    );
    assert.equal(image.status, 400);
    assert.equal(image.json.error.code, 400);
  });

  test('the model list offers embedding methods for embedding models', async () => {
    const res = (await (await fetch(`${gw.origin}/v1beta/models/switchyard/sim-embed`)).json()) as { supportedGenerationMethods: string[] };
    assert.deepEqual(res.supportedGenerationMethods, ['embedContent', 'batchEmbedContents']);
  });

  test('a balance and a key limit stop batchEmbedContents exactly as they stop chat', async () => {
    await assertBudgetsStopSurface(gw, async (key) => {
      const res = await postJson(
        `${gw.origin}/v1beta/models/acme/paid-embed:batchEmbedContents`,
        { requests: [{ content: { parts: [{ text: 'some words to embed here' }] } }] },
        { 'x-goog-api-key': key },
      );
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('a balance and a key limit stop embedContent (the key in ?key=) exactly as they stop chat', async () => {
    await assertBudgetsStopSurface(gw, async (key) => {
      const res = await postJson(`${gw.origin}/v1beta/models/acme/paid-embed:embedContent?key=${key}`, {
        content: { parts: [{ text: 'some words to embed here' }] },
      });
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });
});
