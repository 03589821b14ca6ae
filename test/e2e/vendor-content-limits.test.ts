import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An OpenAI-compatible vendor whose chat API cannot take a content kind (DeepSeek: text
// only; Groq: no files) is refused it before anything is sent: another endpoint of the
// model that can take it serves the request, and with none the client gets 400
// unsupported_content. Each vendor has its own emulator, so "nothing sent" is counted there.
// (A PDF no endpoint can take is sent as its text unless the request forbids it with the
// file-parser plugin's engine `native`: pdf-for-every-model.test.ts.)

const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
const pdf = { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'a.pdf' } };
const withPart = (part: unknown) => [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, part] }];

describe('content a vendor profile cannot carry', () => {
  let deepseek: OpenAIChatEmulator;
  let groq: OpenAIChatEmulator;
  let openai: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    deepseek = await startOpenAIChatEmulator();
    groq = await startOpenAIChatEmulator();
    openai = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - { id: ds, kind: openai, profile: deepseek, base_url: ${deepseek.baseUrl}, api_key: k }
  - { id: gq, kind: openai, profile: groq, base_url: ${groq.baseUrl}, api_key: k }
  - { id: oa, kind: openai, profile: openai, base_url: ${openai.baseUrl}, api_key: k }
models:
  - id: acme/text-only
    context_length: 100000
    endpoints:
      - { provider: ds, model: deepseek-chat, pricing: { prompt: "0", completion: "0" } }
  - id: acme/no-files
    context_length: 100000
    endpoints:
      - { provider: gq, model: llama-4, pricing: { prompt: "0", completion: "0" } }
  - id: acme/mixed
    context_length: 100000
    endpoints:
      - { provider: ds, model: deepseek-chat, pricing: { prompt: "0", completion: "0" } }
      - { provider: gq, model: llama-4, pricing: { prompt: "0", completion: "0" } }
      - { provider: oa, model: gpt-4.1, pricing: { prompt: "0.000001", completion: "0.000001" } }
`,
    });
  });
  after(async () => {
    await gw.close();
    await deepseek.close();
    await groq.close();
    await openai.close();
  });

  const sent = () => deepseek.requests.length + groq.requests.length + openai.requests.length;

  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'not streamed';
    test(`an image to a text-only vendor is a 400 unsupported_content with nothing sent, ${how}`, async () => {
      const before = sent();
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/text-only', stream, messages: withPart(image) },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, 'unsupported_content');
      assert.match(res.json.error.message, /DeepSeek/);
      assert.equal(sent(), before);
    });

    test(`a PDF kept native to a vendor without file parts is a 400 unsupported_content with nothing sent, ${how}`, async () => {
      const before = sent();
      const plugins = [{ id: 'file-parser', pdf: { engine: 'native' } }];
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/no-files', stream, plugins, messages: withPart(pdf) },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, 'unsupported_content');
      assert.equal(sent(), before);
    });
  }

  test('the image goes to the endpoints that take it and never to the one that does not', async () => {
    const before = { ds: deepseek.requests.length, gq: groq.requests.length, oa: openai.requests.length };
    // Whichever endpoint is drawn first, DeepSeek receives nothing; Groq or OpenAI serves.
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mixed', messages: withPart(image) },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(res.json.provider === 'gq' || res.json.provider === 'oa', res.json.provider);
    assert.equal(deepseek.requests.length, before.ds);
  });

  test('the PDF goes only to the endpoint that takes files', async () => {
    const before = { ds: deepseek.requests.length, gq: groq.requests.length, oa: openai.requests.length };
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mixed', messages: withPart(pdf) },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'oa');
    assert.equal(deepseek.requests.length, before.ds);
    assert.equal(groq.requests.length, before.gq);
    assert.equal(openai.requests.length, before.oa + 1);
  });
});
