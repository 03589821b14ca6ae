import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from './fold-stream-parts.ts';
import { appendBase64, Base64PieceJoiner } from './join-base64-pieces.ts';

describe('foldStreamParts: generated audio and images', () => {
  it('folds the pieces of one audio into one part, where it began, whatever came between', () => {
    const { response } = foldStreamParts([
      { type: 'audio-delta', id: 'audio_1', transcript: 'Hello ' },
      { type: 'text-delta', text: 'caption' },
      { type: 'audio-delta', transcript: 'there.' },
      { type: 'audio-delta', data: 'AAAA' },
      { type: 'audio-delta', id: 'audio_1', data: 'BBBB', format: 'wav' },
      { type: 'audio-delta', expiresAt: 1770003600 },
      { type: 'image-output', url: 'https://example.com/a.png' },
    ]);
    assert.deepEqual(response.content, [
      { type: 'audio-output', id: 'audio_1', data: 'AAAABBBB', transcript: 'Hello there.', format: 'wav', expiresAt: 1770003600 },
      { type: 'text', text: 'caption' },
      { type: 'image-output', url: 'https://example.com/a.png' },
    ]);
  });

  it('starts a new audio for another id', () => {
    const { response } = foldStreamParts([
      { type: 'audio-delta', id: 'a', data: 'AAAA' },
      { type: 'audio-delta', id: 'b', data: 'BBBB' },
    ]);
    assert.deepEqual(
      response.content.map((p) => (p.type === 'audio-output' ? [p.id, p.data] : p.type)),
      [
        ['a', 'AAAA'],
        ['b', 'BBBB'],
      ],
    );
  });

  it('joins base64 pieces into one valid payload, padded pieces included', () => {
    const a = Buffer.from([1, 2, 3, 4]);
    const b = Buffer.from([5, 6]);
    const joined = appendBase64(a.toString('base64'), b.toString('base64'));
    assert.deepEqual(Buffer.from(joined, 'base64'), Buffer.from([1, 2, 3, 4, 5, 6]));
    // A payload cut anywhere (no padding) joins as text.
    const whole = Buffer.from('some audio bytes').toString('base64');
    assert.equal(appendBase64(whole.slice(0, 5), whole.slice(5)), whole);
    assert.equal(appendBase64('', 'QQ=='), 'QQ==');
  });

  it('re-cuts pieces encoded on their own into cuts of one payload', () => {
    const pieces = [Buffer.from([1, 2, 3, 4, 5]), Buffer.from([6]), Buffer.from([7, 8, 9, 10, 11, 12]), Buffer.from([13, 14])];
    const joiner = new Base64PieceJoiner();
    const out = pieces.map((b) => joiner.push(b.toString('base64')));
    out.push(joiner.flush());
    for (const piece of out.slice(0, -1)) assert.equal(piece.includes('='), false, `no padding before the end: ${piece}`);
    assert.deepEqual(Buffer.from(out.join(''), 'base64'), Buffer.concat(pieces), 'joined as text, the bytes are whole');
    // Cuts of one payload pass through untouched.
    const plain = new Base64PieceJoiner();
    assert.equal(plain.push('QUJD'), 'QUJD');
    assert.equal(plain.push('RE'), 'RE');
    assert.equal(plain.flush(), '');
  });
});
