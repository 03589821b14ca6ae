import { createHash } from 'node:crypto';
import { endianness } from 'node:os';

// The sim's voice: a real WAV (RIFF, PCM 16-bit mono at 8 kHz) whose samples are drawn from
// the text (a tone per character, pitched by its code, with seeded noise), 60 ms per
// character at speed 1. The text itself rides in a `LIST`/`INFO` `ICMT` chunk, so the sim's
// transcriber hears back exactly what its voice said.

export const SIM_SAMPLE_RATE = 8000;
/** Milliseconds of audio per character of input at speed 1. */
export const SIM_MS_PER_CHARACTER = 60;

/** The samples of `text` spoken at `speed`: 16-bit little-endian PCM. */
export function simPcm(text: string, speed = 1): Buffer {
  const perChar = Math.max(1, Math.round((SIM_SAMPLE_RATE * SIM_MS_PER_CHARACTER) / 1000 / speed));
  const samples = new Int16Array(text.length * perChar);
  // One tone per pitch, computed once (4,096 characters at speed 0.25 are 7.9 M samples).
  const tones = new Map<number, Float32Array>();
  let seed = createHash('sha256').update(text).digest().readUInt32LE(0) || 1;
  let k = 0;
  for (let c = 0; c < text.length; c++) {
    const code = text.charCodeAt(c);
    const pitch = code === 32 ? -1 : code % 64;
    let tone = tones.get(pitch);
    if (tone === undefined) {
      tone = new Float32Array(perChar);
      if (pitch >= 0) for (let i = 0; i < perChar; i++) tone[i] = 0.35 * Math.sin((2 * Math.PI * (180 + pitch * 12) * i) / SIM_SAMPLE_RATE);
      tones.set(pitch, tone);
    }
    for (let i = 0; i < perChar; i++) {
      // xorshift32: deterministic noise under the tone (at most ±0.025: no clipping).
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      samples[k++] = Math.round((tone[i]! + ((seed >>> 0) / 0xffffffff - 0.5) * 0.05) * 32767);
    }
  }
  const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  // WAV is little-endian; a typed array is in the machine's order.
  if (endianness() === 'BE') pcm.swap16();
  return pcm;
}

/** A WAV file of `pcm` (16-bit mono at SIM_SAMPLE_RATE), carrying `comment` in an INFO chunk. */
export function wavFile(pcm: Buffer, comment?: string): Buffer {
  const info = comment === undefined ? Buffer.alloc(0) : infoChunk(comment);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8); // PCM
  fmt.writeUInt16LE(1, 10); // mono
  fmt.writeUInt32LE(SIM_SAMPLE_RATE, 12);
  fmt.writeUInt32LE(SIM_SAMPLE_RATE * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(pcm.length, 4);
  const pad = pcm.length & 1 ? Buffer.alloc(1) : Buffer.alloc(0);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + fmt.length + info.length + 8 + pcm.length + pad.length, 4);
  riff.write('WAVE', 8, 'latin1');
  return Buffer.concat([riff, fmt, info, dataHeader, pcm, pad]);
}

function infoChunk(comment: string): Buffer {
  const text = Buffer.concat([Buffer.from(comment, 'utf8'), Buffer.alloc(1)]);
  const padded = text.length & 1 ? Buffer.concat([text, Buffer.alloc(1)]) : text;
  const head = Buffer.alloc(20);
  head.write('LIST', 0, 'latin1');
  head.writeUInt32LE(4 + 8 + padded.length, 4);
  head.write('INFO', 8, 'latin1');
  head.write('ICMT', 12, 'latin1');
  head.writeUInt32LE(text.length, 16);
  return Buffer.concat([head, padded]);
}

/** The INFO comment of a WAV file (the text a sim voice spoke), or null. */
export function wavComment(b: Buffer): string | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  for (let i = 0; i < 64 && at + 8 <= b.length; i++) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'LIST' && at + 12 <= b.length && b.toString('latin1', at + 8, at + 12) === 'INFO') {
      const end = Math.min(b.length, at + 8 + size);
      for (let sub = at + 12; sub + 8 <= end;) {
        const subSize = b.readUInt32LE(sub + 4);
        if (b.toString('latin1', sub, sub + 4) === 'ICMT') {
          return b.toString('utf8', sub + 8, Math.min(end, sub + 8 + subSize)).replace(/\0+$/, '');
        }
        sub += 8 + subSize + (subSize & 1);
      }
    }
    if (id === 'data') return null;
    at += 8 + size + (size & 1);
  }
  return null;
}
