import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { GeminiFixture } from '../../emulators/gemini-emulator.ts';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import type { CanonicalResponse } from '../../../src/canonical/response.ts';
import { convertToGeminiContents } from '../../../src/providers/google/convert-to-gemini-contents.ts';
import { audioFormatOf } from '../../../src/providers/google/gemini-answer-decoder.ts';
import { partsOfType, testRequest, useGeminiEmulator } from './google-test-helpers.ts';

// Gemini's generated media (`inlineData` parts in the answer) against the Gemini emulator
// over real HTTP, streamed and not: images from image models, audio from speech models.
// The answers are written in the shape of Gemini's (reference/wire-formats.md §4), not
// recorded.

const h = useGeminiEmulator();

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const DRAFT = 'R0lGODlhAQABAAAAACw=';

function comparable(r: CanonicalResponse): unknown {
  return { ...r, id: undefined, usage: r.usage === null ? null : { ...r.usage, raw: undefined } };
}

function chunk(parts: unknown[], usage: Record<string, unknown>, finishReason?: string): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (finishReason !== undefined) candidate.finishReason = finishReason;
  return { candidates: [candidate], usageMetadata: usage, modelVersion: 'gemini-2.5-flash-image', responseId: 'imgResp1' };
}

/** An image model's answer: a draft drawn while thinking, some text, then the image. */
const IMAGE_ANSWER: GeminiFixture = {
  chunks: [
    chunk([{ inlineData: { mimeType: 'image/gif', data: DRAFT }, thought: true }], { promptTokenCount: 10, totalTokenCount: 10 }),
    chunk([{ text: 'A red dot, ' }], { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 }),
    chunk(
      [{ text: 'as asked.' }, { inlineData: { mimeType: 'image/png', data: PNG } }],
      {
        promptTokenCount: 10,
        candidatesTokenCount: 1296,
        totalTokenCount: 1306,
        candidatesTokensDetails: [
          { modality: 'TEXT', tokenCount: 6 },
          { modality: 'IMAGE', tokenCount: 1290 },
        ],
      },
      'STOP',
    ),
  ],
};

/** 16-bit PCM in two pieces, each encoded on its own (so the first ends in padding). */
const PCM_A = Buffer.from([1, 0, 2, 0, 3]);
const PCM_B = Buffer.from([0, 4, 0, 5, 0, 6]);
const SPEECH_ANSWER: GeminiFixture = {
  chunks: [
    chunk([{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: PCM_A.toString('base64') } }], {
      promptTokenCount: 8,
      totalTokenCount: 8,
    }),
    chunk(
      [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: PCM_B.toString('base64') } }],
      {
        promptTokenCount: 8,
        candidatesTokenCount: 25,
        totalTokenCount: 33,
        candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 25 }],
      },
      'STOP',
    ),
  ],
};

describe('google adapter: generated images', () => {
  it('turns inlineData images into image parts (data: URIs), leaves thought drafts out, streamed and not alike', async () => {
    h.emu.enqueue({ replay: IMAGE_ANSWER }, { replay: IMAGE_ANSWER });
    const plain = await h.run(testRequest({ modalities: ['text', 'image'] }), h.endpoint('gemini-2.5-flash-image'));
    const streamed = await h.run(testRequest({ modalities: ['text', 'image'], stream: true }), h.endpoint('gemini-2.5-flash-image'));
    const a = foldStreamParts(plain.parts).response;
    assert.deepEqual(a.content, [
      { type: 'text', text: 'A red dot, as asked.' },
      { type: 'image-output', url: `data:image/png;base64,${PNG}` },
    ]);
    assert.deepEqual(comparable(foldStreamParts(streamed.parts).response), comparable(a));
    assert.equal(partsOfType(streamed.parts, 'image-output').length, 1);
    assert.equal(a.usage?.output, 1296);
    // The modalities the client asked for, in Gemini's spelling.
    assert.deepEqual(h.emu.requests[0]!.body.generationConfig, { responseModalities: ['TEXT', 'IMAGE'] });
  });
});

describe('google adapter: generated audio', () => {
  it('folds inlineData audio pieces into one audio (pcm16), with its audio tokens, streamed and not alike', async () => {
    h.emu.enqueue({ replay: SPEECH_ANSWER }, { replay: SPEECH_ANSWER });
    const plain = await h.run(testRequest({ modalities: ['audio'] }), h.endpoint('gemini-2.5-flash-preview-tts'));
    const streamed = await h.run(testRequest({ modalities: ['audio'], stream: true }), h.endpoint('gemini-2.5-flash-preview-tts'));
    // Re-cut so that the pieces join as text (as clients join them): whole groups, the
    // leftover bytes last, before the finish.
    const pieces = partsOfType(streamed.parts, 'audio-delta');
    assert.deepEqual(
      pieces.map((p) => p.format),
      ['pcm16', 'pcm16', 'pcm16'],
    );
    assert.deepEqual(Buffer.from(pieces.map((p) => p.data).join(''), 'base64'), Buffer.concat([PCM_A, PCM_B]));
    assert.equal(
      streamed.parts.findIndex((p) => p.type === 'finish'),
      streamed.parts.indexOf(pieces[2]!) + 1,
    );
    const a = foldStreamParts(plain.parts).response;
    assert.equal(a.content.length, 1);
    const audio = a.content[0]!;
    assert.ok(audio.type === 'audio-output');
    assert.deepEqual(
      Buffer.from(audio.data, 'base64'),
      Buffer.concat([PCM_A, PCM_B]),
      'one valid payload despite the padding between pieces',
    );
    assert.deepEqual({ ...audio, data: undefined }, { type: 'audio-output', data: undefined, transcript: '', format: 'pcm16' });
    assert.deepEqual(comparable(foldStreamParts(streamed.parts).response), comparable(a));
    assert.equal(a.usage?.audioOutput, 25);
    // `audio` (OpenAI's voice and format) has no Gemini field.
    assert.deepEqual(h.emu.requests[1]!.body.generationConfig, { responseModalities: ['AUDIO'] });
  });

  it('names audio media types as OpenAI formats', () => {
    assert.equal(audioFormatOf('audio/l16;codec=pcm;rate=24000'), 'pcm16');
    assert.equal(audioFormatOf('audio/mpeg'), 'mp3');
    assert.equal(audioFormatOf('audio/wav'), 'wav');
    assert.equal(audioFormatOf('audio/ogg'), 'ogg');
  });
});

describe('google adapter: generated media in the history', () => {
  it('sends an image back inline in the model turn, and audio as its transcript', () => {
    const { contents } = convertToGeminiContents([
      { role: 'user', content: [{ type: 'text', text: 'Draw a dot, then say so' }] },
      {
        role: 'assistant',
        content: [
          { type: 'image-output', url: `data:image/png;base64,${PNG}` },
          { type: 'audio-output', data: 'AAAA', transcript: 'Here is a dot.', format: 'pcm16' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Make it blue' }] },
    ]);
    assert.deepEqual(contents[1], {
      role: 'model',
      parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }, { text: 'Here is a dot.' }],
    });
  });
});
