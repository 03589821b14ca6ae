import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readAudioDuration } from '../../src/canonical/audio-duration/read-audio-duration.ts';
import { flacBytes, id3Tag, mp3Bytes, mp4Bytes, oggBytes, wavBytes, webmBytes } from '../support/audio-files.ts';
import { simPcm, wavFile } from '../../src/providers/sim/sim-wav.ts';

// The duration of an uploaded file bounds a transcription's hold: read from each
// container's own header (docs/audio.md), and null — refused — when it cannot be.

describe('audio duration from the file header', () => {
  test('WAV: data bytes over the byte rate, past odd-sized chunks; a data size beyond the file counts what is there', () => {
    assert.deepEqual(readAudioDuration(wavBytes(2500)), { container: 'wav', durationMs: 2500 });
    assert.equal(readAudioDuration(wavBytes(1000, { sampleRate: 44100, channels: 2, extraChunk: true })).durationMs, 1000);
    const streamed = wavBytes(1000);
    streamed.writeUInt32LE(0xffffffff, 40);
    assert.equal(readAudioDuration(streamed).durationMs, 1000);
    assert.equal(readAudioDuration(wavBytes(3000).subarray(0, 16000 + 44)).durationMs, 500, 'a cut file: what is there');
    // The sim's own voice: 60 ms a character, with its INFO chunk before the data.
    assert.equal(readAudioDuration(wavFile(simPcm('hello'), 'hello')).durationMs, 300);
  });

  test('MP3: a frame walk, a Xing header, a VBRI header, MPEG-2, an ID3 tag and a trailing tag', () => {
    const frameMs = (1152 * 1000) / 44100;
    assert.deepEqual(readAudioDuration(mp3Bytes(100)), { container: 'mp3', durationMs: Math.round(100 * frameMs) });
    assert.equal(readAudioDuration(mp3Bytes(100, { id3: true, trailer: true })).durationMs, Math.round(100 * frameMs));
    // A Xing header's count wins over the frames present (a VBR file's average is not its length).
    assert.equal(readAudioDuration(mp3Bytes(5, { header: 'xing' })).durationMs, Math.round(5 * frameMs));
    const xing = mp3Bytes(20, { header: 'xing' });
    xing.writeUInt32BE(1000, 4 + 32 + 8);
    assert.equal(readAudioDuration(xing).durationMs, Math.round(1000 * frameMs));
    const vbri = mp3Bytes(20, { header: 'vbri' });
    vbri.writeUInt32BE(500, 4 + 32 + 14);
    assert.equal(readAudioDuration(vbri).durationMs, Math.round(500 * frameMs));
    assert.equal(readAudioDuration(mp3Bytes(50, { mpeg2: true })).durationMs, 50 * 24);
    assert.equal(readAudioDuration(mp3Bytes(50, { mpeg2: true, header: 'xing' })).durationMs, 50 * 24);
  });

  test('FLAC: STREAMINFO total samples over the rate, after an ID3 tag too', () => {
    assert.deepEqual(readAudioDuration(flacBytes(44100 * 3)), { container: 'flac', durationMs: 3000 });
    assert.equal(readAudioDuration(Buffer.concat([id3Tag(100), flacBytes(48000 * 2, 48000)])).durationMs, 2000);
    assert.equal(readAudioDuration(flacBytes(0)).durationMs, null, 'an encoder that did not know the length');
  });

  test('Ogg: the last granule position (Opus less its pre-skip, Vorbis at its rate)', () => {
    assert.deepEqual(readAudioDuration(oggBytes(4200)), { container: 'ogg', durationMs: 4200 });
    assert.equal(readAudioDuration(oggBytes(1500, 'vorbis', { rate: 22050 })).durationMs, 1500);
    assert.equal(readAudioDuration(oggBytes(1500, 'opus', { truncated: true })).durationMs, null, 'headers only: no audio page');
  });

  test("MP4/M4A: mvhd version 0 and 1, moov after mdat, and a fragmented file's mehd", () => {
    assert.deepEqual(readAudioDuration(mp4Bytes(7250)), { container: 'mp4', durationMs: 7250 });
    assert.equal(readAudioDuration(mp4Bytes(7250, { version: 1 })).durationMs, 7250);
    assert.equal(readAudioDuration(mp4Bytes(1000, { mdatFirst: true })).durationMs, 1000);
    assert.equal(readAudioDuration(mp4Bytes(9000, { fragmented: true })).durationMs, 9000);
    assert.equal(readAudioDuration(mp4Bytes(1000, { noMoov: true })).durationMs, null);
  });

  test("WebM: Info's Duration, or a MediaRecorder file's clusters of unknown size walked to the last block", () => {
    assert.deepEqual(readAudioDuration(webmBytes(3300)), { container: 'webm', durationMs: 3300 });
    assert.equal(readAudioDuration(webmBytes(2500, { live: true })).durationMs, 2500);
  });

  test('malformed and truncated files have no duration', () => {
    const cases: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['text', Buffer.from('this is not audio at all, just some words')],
      ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))],
      ['a RIFF header only', wavBytes(1000).subarray(0, 12)],
      ['a WAV cut inside fmt', wavBytes(1000).subarray(0, 30)],
      ['a WAV with no data chunk', wavBytes(1000).subarray(0, 36)],
      [
        'a WAV with a zero byte rate',
        (() => {
          const b = wavBytes(1000);
          b.writeUInt32LE(0, 28);
          return b;
        })(),
      ],
      ['a lone MP3 frame header', mp3Bytes(1).subarray(0, 100)],
      ['a FLAC cut inside STREAMINFO', flacBytes(44100).subarray(0, 20)],
      ['an Ogg page header cut short', oggBytes(1000).subarray(0, 20)],
      ['an MP4 cut inside mvhd', mp4Bytes(1000).subarray(0, 40)],
      ['a WebM EBML header only', webmBytes(1000).subarray(0, 30)],
      ['a live WebM with no blocks', webmBytes(0, { live: true })],
      ['an ID3 tag and nothing else', id3Tag(500)],
    ];
    for (const [what, bytes] of cases) assert.equal(readAudioDuration(bytes).durationMs, null, what);
  });

  test('a hostile file is read in bounded time (chunk, box and element walks stop)', () => {
    // 100,000 empty RIFF chunks and a 25 MB run of MP3-looking sync bytes with no valid header.
    const chunks = Buffer.concat([wavBytes(0).subarray(0, 12), Buffer.alloc(8 * 100_000)]);
    const syncs = Buffer.alloc(25 * 1024 * 1024, 0xff);
    const started = performance.now();
    assert.equal(readAudioDuration(chunks).durationMs, null);
    assert.equal(readAudioDuration(syncs).durationMs, null);
    assert.ok(performance.now() - started < 2000);
  });

  test('a header that says less than the file holds is not believed (a short header on long audio)', () => {
    const M = 1024 * 1024;
    // WAV: a byte rate far above what the samples play at; a tiny first data chunk before the real one.
    const fast = wavBytes(10_000);
    fast.writeUInt32LE(0xfffffff0, 28);
    assert.equal(readAudioDuration(fast).durationMs, 10_000, 'PCM plays at sampleRate × blockAlign');
    const twoData = wavBytes(10_000);
    twoData.writeUInt32LE(2, 40);
    assert.equal(readAudioDuration(twoData).durationMs, 10_000, 'the bytes after a short data chunk are not a chunk: counted to the end');
    // A short data chunk, then a second one holding the rest: both are audio.
    const head = wavBytes(0);
    const tail = (id: string, body: Buffer): Buffer => {
      const h = Buffer.alloc(8);
      h.write(id, 0, 'latin1');
      h.writeUInt32LE(body.length, 4);
      return Buffer.concat([h, body]);
    };
    const split = Buffer.concat([head, Buffer.alloc(2), tail('data', Buffer.alloc(320_000))]);
    split.writeUInt32LE(2, 40);
    assert.equal(readAudioDuration(split).durationMs, 10_000);
    // Cover art after the audio is not audio; 300 empty chunks before it do not hide it.
    assert.equal(readAudioDuration(Buffer.concat([wavBytes(1000), tail('id3 ', Buffer.alloc(500_000))])).durationMs, 1000);
    const hidden = Buffer.concat([
      head.subarray(0, head.length - 8),
      Buffer.concat(Array.from({ length: 300 }, () => tail('junk', Buffer.alloc(0)))),
      tail('data', Buffer.alloc(320_000)),
    ]);
    assert.ok(readAudioDuration(hidden).durationMs! >= 10_000, 'past the chunk bound the rest counts as audio');
    // MP3: a Xing count of 1 on 2,000 frames; junk between frames is skipped, as a decoder resyncs.
    const frameMs = (1152 * 1000) / 44100;
    const xing = mp3Bytes(2000, { header: 'xing' });
    xing.writeUInt32BE(1, 4 + 32 + 8);
    assert.equal(readAudioDuration(xing).durationMs, Math.round(2000 * frameMs));
    const junk = Buffer.concat([mp3Bytes(2), Buffer.from('not a frame'), mp3Bytes(500)]);
    assert.equal(readAudioDuration(junk).durationMs, Math.round(502 * frameMs));
    // MP4: a 1 s mvhd over a sound track of 430 AAC frames (10 s at 44.1 kHz); stts deltas of 1 do not shorten it.
    assert.equal(
      readAudioDuration(mp4Bytes(1000, { soundTrack: { timescale: 44100, samples: 430, delta: 1024 } })).durationMs,
      Math.round((430 * 1024 * 1000) / 44100),
    );
    assert.equal(
      readAudioDuration(mp4Bytes(1000, { soundTrack: { timescale: 44100, samples: 430, delta: 1 } })).durationMs,
      Math.round((430 * 1024 * 1000) / 44100),
    );
    assert.equal(
      readAudioDuration(Buffer.concat([mp4Bytes(7250), Buffer.alloc(4 * M)])).durationMs,
      7250,
      "a video's bytes are not seconds of audio",
    );
    // WebM: a Duration of 1 ms over 5 s of blocks.
    assert.equal(readAudioDuration(webmBytes(5000, { live: true, claimMs: 1 })).durationMs, 5000);
    // Containers whose duration is only a header's word: at least the size over the densest audio they carry.
    const pad = (file: Buffer): Buffer => Buffer.concat([file, Buffer.alloc(4 * M)]);
    assert.equal(readAudioDuration(pad(flacBytes(44100))).durationMs! >= Math.round((4 * M * 1000) / 400_000), true, 'flac');
    const longOgg = Buffer.concat([oggBytes(1000).subarray(0, 200), Buffer.alloc(4 * M), oggBytes(1000)]);
    assert.ok(readAudioDuration(longOgg).durationMs! >= Math.round((4 * M * 1000) / 64_000), 'ogg');
    assert.equal(
      readAudioDuration(pad(mp4Bytes(1000, { fragmented: true }))).durationMs! >= Math.round((4 * M * 1000) / 64_000),
      true,
      'fragmented mp4',
    );
    assert.equal(readAudioDuration(mp4Bytes(7250)).durationMs, 7250, "an honest small file keeps its header's duration");
  });
});
