import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAnthropicEmulator, type AnthropicEmulator } from '../emulators/anthropic-messages-emulator.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Content one provider cannot take (audio to Anthropic) is refused for that endpoint before
// anything is sent; another endpoint of the plan that can take it serves the request.

const audioMessage = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'transcribe' },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
    ],
  },
];

describe('content an endpoint cannot carry', () => {
  let anth: AnthropicEmulator;
  let oai: OpenAIChatEmulator;
  let gw: TestGateway;
  before(async () => {
    anth = await startAnthropicEmulator();
    oai = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - { id: anth, kind: anthropic, base_url: ${anth.baseUrl}, api_key: k }
  - { id: oai, kind: openai, base_url: ${oai.baseUrl} }
models:
  - id: acme/claude-only
    context_length: 100000
    endpoints:
      - { provider: anth, model: claude-x, pricing: { prompt: "0", completion: "0" } }
  - id: acme/either
    context_length: 100000
    endpoints:
      - { provider: anth, model: claude-y, pricing: { prompt: "0", completion: "0" } }
      - { provider: oai, model: gpt-y, pricing: { prompt: "0.000001", completion: "0.000001" } }
`,
    });
  });
  after(async () => {
    await gw.close();
    await anth.close();
    await oai.close();
  });

  for (const stream of [false, true]) {
    test(`with no other endpoint it is a 400 unsupported_content, ${stream ? 'streamed' : 'not streamed'}, and nothing is sent`, async () => {
      const before = anth.requests.length;
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/claude-only', stream, messages: audioMessage },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.code, 'unsupported_content');
      assert.equal(anth.requests.length, before);
    });
  }

  test('another endpoint that can carry it serves the request', async () => {
    // Either endpoint may be drawn first; whichever it is, the audio ends up at the OpenAI one.
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/either', messages: audioMessage },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.provider, 'oai');
  });
});
