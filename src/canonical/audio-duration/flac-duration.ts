import { skipId3v2 } from './id3.ts';

// FLAC: the STREAMINFO block (always the first metadata block) holds the sample rate and
// the total number of samples; 0 samples means the encoder did not know them.

export function isFlac(b: Buffer): boolean {
  const at = skipId3v2(b);
  return b.length >= at + 4 && b.toString('latin1', at, at + 4) === 'fLaC';
}

export function flacDurationMs(b: Buffer): number | null {
  const at = skipId3v2(b) + 4;
  if (b.length < at + 4 + 34 || (b[at]! & 0x7f) !== 0) return null;
  return streamInfoDurationMs(b, at + 4);
}

/** The duration a 34-byte STREAMINFO at `at` says (also inside an Ogg FLAC stream). */
export function streamInfoDurationMs(b: Buffer, at: number): number | null {
  if (b.length < at + 18) return null;
  const rate = (b[at + 10]! << 12) | (b[at + 11]! << 4) | (b[at + 12]! >> 4);
  const samples = (b[at + 13]! & 0x0f) * 2 ** 32 + b.readUInt32BE(at + 14);
  if (rate === 0 || samples === 0) return null;
  return Math.round((samples * 1000) / rate);
}
