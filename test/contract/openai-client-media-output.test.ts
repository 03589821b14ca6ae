import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Generated audio and images, as a user's code reads them through the official `openai`
// client: `message.audio` (OpenAI's audio modality) and `message.images` (OpenRouter's
// shape), whole and streamed, from an OpenAI-format upstream and from Gemini.

const AUDIO = Buffer.from('RIFF....WAVEfmt spoken words, sampled and encoded....').toString('base64');
const PNG_DATA = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG = `data:image/png;base64,${PNG_DATA}`;

/** `images` is OpenRouter's field, not in the client's types. */
interface ChatImage {
  type: 'image_url';
  image_url: { url: string };
}
function imagesOf(message: object): ChatImage[] | undefined {
  return (message as { images?: ChatImage[] }).images;
}

describe('the official openai client reads generated audio and images (OpenAI-format upstream)', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl) });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  const spoken = {
    audio: { id: 'audio_xyz', data: AUDIO, transcript: 'Paris is the capital.', expiresAt: 1_900_000_000, chunks: 3 },
    usage: { prompt_tokens: 9, completion_tokens: 60, audio_tokens: 50 },
  };

  test('choices[0].message.audio, with its audio tokens, and the replay by id', async () => {
    emu.enqueue(spoken);
    const c = await client.chat.completions.create({
      model: 'acme/mock-1',
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      messages: [{ role: 'user', content: 'Capital of France? Say it.' }],
    });
    const message = c.choices[0]!.message;
    assert.equal(message.content, null);
    assert.deepEqual(message.audio, { id: 'audio_xyz', data: AUDIO, transcript: 'Paris is the capital.', expires_at: 1_900_000_000 });
    assert.equal(c.usage!.completion_tokens_details?.audio_tokens, 50);
    const upstream = emu.requests[0]!.body;
    assert.deepEqual([upstream.modalities, upstream.audio], [['text', 'audio'], { voice: 'alloy', format: 'wav' }]);
  });

  test('streamed: delta.audio pieces, joined by the client into the whole audio', async () => {
    emu.enqueue(spoken, spoken);
    const params = {
      model: 'acme/mock-1',
      modalities: ['text', 'audio'] as Array<'text' | 'audio'>,
      audio: { voice: 'alloy' as const, format: 'wav' as const },
      messages: [{ role: 'user' as const, content: 'Capital of France? Say it.' }],
    };
    let data = '';
    let transcript = '';
    let id = '';
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
      const audio = chunk.choices[0]?.delta?.audio;
      id ||= audio?.id ?? '';
      data += audio?.data ?? '';
      transcript += audio?.transcript ?? '';
    }
    assert.deepEqual([id, data, transcript], ['audio_xyz', AUDIO, 'Paris is the capital.']);

    // The client's own accumulation (`stream().finalChatCompletion()`) reads the same.
    const final = await client.chat.completions.stream(params).finalChatCompletion();
    assert.deepEqual(final.choices[0]!.message.audio, {
      id: 'audio_xyz',
      data: AUDIO,
      transcript: 'Paris is the capital.',
      expires_at: 1_900_000_000,
    });
  });

  test('choices[0].message.images, whole and streamed', async () => {
    const drawn = { text: 'A red dot.', images: [PNG] };
    emu.enqueue(drawn, drawn);
    const c = await client.chat.completions.create({
      model: 'acme/mock-1',
      modalities: ['text', 'image'] as never,
      messages: [{ role: 'user', content: 'Draw a red dot.' }],
    });
    assert.equal(c.choices[0]!.message.content, 'A red dot.');
    assert.deepEqual(imagesOf(c.choices[0]!.message), [{ type: 'image_url', image_url: { url: PNG } }]);

    const images: ChatImage[] = [];
    for await (const chunk of await client.chat.completions.create({
      model: 'acme/mock-1',
      messages: [{ role: 'user', content: 'Draw a red dot.' }],
      stream: true,
    })) {
      images.push(...(imagesOf(chunk.choices[0]?.delta ?? {}) ?? []));
    }
    assert.deepEqual(images, [{ type: 'image_url', image_url: { url: PNG } }]);
  });
});

describe('the official openai client reads an image Gemini drew', () => {
  let emu: GeminiEmulator;
  let gw: TestGateway;
  let client: OpenAI;

  before(async () => {
    emu = await startGeminiEmulator({ apiKey: 'gm-secret' });
    gw = await startTestGateway({
      yaml: `sim: false
providers:
  - id: google
    base_url: ${emu.baseUrl}
    api_key: gm-secret
models:
  - id: google/gemini-2.5-flash-image
    kind: chat
    context_length: 32768
    capabilities: [text, streaming, multimodal, image_output]
    endpoints:
      - provider: google
        model: gemini-2.5-flash-image
        pricing: { prompt: "0.0000003", completion: "0.00003" }
        data_collection: deny
`,
    });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('an inlineData image becomes message.images, a data: URI', async () => {
    // Gemini's answer shape (reference/wire-formats.md §4), written here, not recorded.
    emu.enqueue({
      replay: {
        chunks: [
          {
            candidates: [
              {
                content: { role: 'model', parts: [{ text: 'Here you go.' }, { inlineData: { mimeType: 'image/png', data: PNG_DATA } }] },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 1293, totalTokenCount: 1299 },
            modelVersion: 'gemini-2.5-flash-image',
            responseId: 'imgResp2',
          },
        ],
      },
    });
    const c = await client.chat.completions.create({
      model: 'google/gemini-2.5-flash-image',
      modalities: ['text', 'image'] as never,
      messages: [{ role: 'user', content: 'Draw a red dot.' }],
    });
    assert.equal(c.choices[0]!.message.content, 'Here you go.');
    assert.deepEqual(imagesOf(c.choices[0]!.message), [{ type: 'image_url', image_url: { url: PNG } }]);
    assert.deepEqual(emu.requests[0]!.body.generationConfig, { responseModalities: ['TEXT', 'IMAGE'] });
  });
});
