import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A chat client replays an answer the model spoke as `assistant.audio: {id}` (OpenAI's
// audio modality). The id goes back to an upstream that generates audio; one that does not
// (here Groq's profile, which drops `audio`) cannot resolve it, so it is left out there.

const AUDIO = Buffer.from('RIFF....WAVEfmt spoken words....').toString('base64');

function yaml(speaking: string, textOnly: string): string {
  return `sim: false
providers:
  - id: speaking
    kind: openai
    base_url: ${speaking}
  - id: textonly
    kind: openai
    profile: groq
    base_url: ${textOnly}
models:
  - id: acme/speaker
    context_length: 32000
    capabilities: [text, streaming, audio_output]
    endpoints:
      - { provider: speaking, model: speaker-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
  - id: acme/writer
    context_length: 32000
    endpoints:
      - { provider: textonly, model: writer-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;
}

describe('assistant.audio {id} replayed through the official openai client', () => {
  let speaking: OpenAIChatEmulator;
  let textOnly: OpenAIChatEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  before(async () => {
    [speaking, textOnly] = await Promise.all([startOpenAIChatEmulator(), startOpenAIChatEmulator()]);
    gw = await startTestGateway({ yaml: yaml(speaking.baseUrl, textOnly.baseUrl) });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await Promise.all([speaking.close(), textOnly.close()]);
  });
  beforeEach(() => {
    speaking.reset();
    textOnly.reset();
  });

  async function spokenTurn(): Promise<OpenAI.ChatCompletionMessageParam[]> {
    speaking.enqueue({ audio: { id: 'audio_abc', data: AUDIO, transcript: 'Paris.' } });
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Capital of France? Say it.' };
    const first = await client.chat.completions.create({
      model: 'acme/speaker',
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      messages: [question],
    });
    const audio = first.choices[0]!.message.audio;
    assert.equal(audio?.id, 'audio_abc');
    // As OpenAI's audio guide replays a spoken answer: the audio by id, no content.
    return [question, { role: 'assistant', audio: { id: audio.id } }, { role: 'user', content: 'And of Italy?' }];
  }

  test('to an upstream that speaks, the id goes back as audio: {id}', async () => {
    const messages = await spokenTurn();
    await client.chat.completions.create({
      model: 'acme/speaker',
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      messages,
    });
    const replayed = speaking.requests[1]!.body.messages[1];
    assert.equal(replayed.role, 'assistant');
    assert.deepEqual(replayed.audio, { id: 'audio_abc' });
  });

  test('to an upstream that generates no audio, the id is left out and the rest of the turn goes', async () => {
    const messages = await spokenTurn();
    const answer = await client.chat.completions.create({ model: 'acme/writer', messages });
    assert.equal(answer.choices[0]!.finish_reason, 'stop');
    const sent = textOnly.requests[0]!.body.messages;
    assert.equal(sent.length, 3);
    assert.equal(sent[1].role, 'assistant');
    assert.equal('audio' in sent[1], false);
  });

  test('a malformed audio field is a 400 naming it', async () => {
    for (const [audio, field] of [
      ['audio_abc', 'messages[1].audio'],
      [{}, 'messages[1].audio.id'],
      [{ id: 7 }, 'messages[1].audio.id'],
    ] as const) {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/speaker',
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', audio },
            { role: 'user', content: 'again' },
          ],
        },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 400, JSON.stringify(audio));
      assert.match(res.json.error.message, new RegExp(field.replace(/[[\].]/g, '\\$&')));
    }
  });
});
