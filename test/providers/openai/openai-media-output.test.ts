import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import type { CanonicalResponse } from '../../../src/canonical/response.ts';
import { buildOpenAIChatBody } from '../../../src/providers/openai/convert-to-openai-chat-request.ts';
import { partsOfType, testEndpoint, testRequest, useOpenAIEmulator } from './openai-test-helpers.ts';

// Generated audio (OpenAI's `audio` modality) and images (OpenRouter's `images`) against the
// OpenAI emulator over real HTTP, streamed and not, and audio replayed in a later request.

const h = useOpenAIEmulator();

/** Base64 of 48 bytes: 64 characters, so the emulator streams it in whole groups. */
const AUDIO = Buffer.from('RIFF....WAVEfmt a short clip of spoken audio....').toString('base64');
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function comparable(r: CanonicalResponse): unknown {
  return { ...r, id: undefined, usage: r.usage === null ? null : { ...r.usage, raw: undefined } };
}

describe('openai adapter: generated audio', () => {
  const step = {
    audio: { id: 'audio_abc', data: AUDIO, transcript: 'Hello there, friend.', expiresAt: 1_800_000_000, chunks: 3 },
    usage: { prompt_tokens: 12, completion_tokens: 40, audio_tokens: 33 },
  };

  it('decodes message.audio into one audio part, with its audio tokens', async () => {
    h.emu.enqueue(step);
    const ex = await h.run(testRequest({ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }));
    assert.deepEqual(
      ex.parts.map((p) => p.type),
      ['stream-start', 'audio-delta', 'finish', 'usage'],
    );
    assert.deepEqual(partsOfType(ex.parts, 'audio-delta')[0], {
      type: 'audio-delta',
      id: 'audio_abc',
      data: AUDIO,
      transcript: 'Hello there, friend.',
      expiresAt: 1_800_000_000,
    });
    const { response } = foldStreamParts(ex.parts);
    assert.deepEqual(response.content, [
      { type: 'audio-output', id: 'audio_abc', data: AUDIO, transcript: 'Hello there, friend.', expiresAt: 1_800_000_000 },
    ]);
    assert.equal(response.usage?.audioOutput, 33);
    // The request asked for it as OpenAI takes it.
    const sent = h.emu.requests[0]!.body;
    assert.deepEqual([sent.modalities, sent.audio], [['text', 'audio'], { voice: 'alloy', format: 'wav' }]);
  });

  it('decodes delta.audio pieces, which fold to the same answer', async () => {
    h.emu.enqueue(step, step);
    const plain = await h.run(testRequest());
    const streamed = await h.run(testRequest({ stream: true }));
    const pieces = partsOfType(streamed.parts, 'audio-delta');
    assert.ok(pieces.length >= 5, `the id, transcript pieces, data pieces, expires_at: ${pieces.length}`);
    assert.equal(pieces[0]!.id, 'audio_abc');
    assert.deepEqual(comparable(foldStreamParts(streamed.parts).response), comparable(foldStreamParts(plain.parts).response));
  });
});

describe('openai adapter: generated images (OpenRouter)', () => {
  const step = {
    text: 'Here is your picture.',
    images: [PNG, 'https://example.com/cat.png'],
    usage: { prompt_tokens: 9, completion_tokens: 1300 },
  };
  const openrouter = () => h.endpoint({ profile: 'openrouter' });

  it('decodes message.images and delta.images to image parts, streamed and not alike', async () => {
    h.emu.enqueue(step, step);
    const plain = await h.run(testRequest({ modalities: ['image', 'text'] }), openrouter());
    const streamed = await h.run(testRequest({ modalities: ['image', 'text'], stream: true }), openrouter());
    assert.deepEqual(
      partsOfType(plain.parts, 'image-output').map((p) => p.url),
      [PNG, 'https://example.com/cat.png'],
    );
    assert.deepEqual(
      partsOfType(streamed.parts, 'image-output').map((p) => p.url),
      [PNG, 'https://example.com/cat.png'],
    );
    const a = foldStreamParts(plain.parts).response;
    assert.deepEqual(a.content, [
      { type: 'text', text: 'Here is your picture.' },
      { type: 'image-output', url: PNG },
      { type: 'image-output', url: 'https://example.com/cat.png' },
    ]);
    assert.deepEqual(comparable(foldStreamParts(streamed.parts).response), comparable(a));
    // OpenRouter is asked for images: modalities pass now that the answer is read.
    assert.deepEqual(h.emu.requests[0]!.body.modalities, ['image', 'text']);
  });

  it('skips image entries without a url', async () => {
    h.emu.enqueue({
      fault: 'status',
      status: 200,
      body: {
        id: 'x',
        model: 'm',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: '',
              images: [null, { type: 'image_url' }, { type: 'image_url', image_url: { url: PNG } }],
            },
          },
        ],
      },
    });
    const ex = await h.run(testRequest(), openrouter());
    assert.deepEqual(
      partsOfType(ex.parts, 'image-output').map((p) => p.url),
      [PNG],
    );
  });
});

describe('openai adapter: generated audio and images in the history', () => {
  const history = (audio: { id?: string; transcript: string }) =>
    testRequest({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Say hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'audio-output', data: AUDIO, format: 'wav', ...audio },
            { type: 'image-output', url: PNG },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ],
    });

  it('replays OpenAI audio by its id, and other audio as its transcript; images are left out', () => {
    const byId = buildOpenAIChatBody(history({ id: 'audio_abc', transcript: 'Hi!' }), testEndpoint());
    assert.deepEqual(byId.messages[1], { role: 'assistant', content: '', audio: { id: 'audio_abc' } });
    const noId = buildOpenAIChatBody(history({ transcript: 'Hi!' }), testEndpoint());
    assert.deepEqual(noId.messages[1], { role: 'assistant', content: 'Hi!' });
  });
});
