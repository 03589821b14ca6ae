import { streamInfoDurationMs } from './flac-duration.ts';

// Ogg (Opus, Vorbis, FLAC): the last page's granule position of the first logical stream,
// in samples: at 48 kHz less the pre-skip for Opus, at the identification header's rate for
// Vorbis and FLAC. The last page is found by scanning back from the end (a page is at most
// 65,307 bytes, so the scan is bounded).

const MAX_PAGE = 27 + 255 + 255 * 255;

export function isOgg(b: Buffer): boolean {
  return b.length >= 28 && b.toString('latin1', 0, 4) === 'OggS';
}

interface Codec {
  rate: number;
  preSkip: number;
  flacMs?: number | null;
}

/** An Ogg stream whose first packet is FLAC's mapping header (0x7F "FLAC"): lossless audio. */
export function isOggFlac(b: Buffer): boolean {
  if (!isOgg(b)) return false;
  const packet = 27 + b[26]!;
  return packet + 5 <= b.length && b[packet] === 0x7f && b.toString('latin1', packet + 1, packet + 5) === 'FLAC';
}

export function oggDurationMs(b: Buffer): number | null {
  if (!isOgg(b) || b[4] !== 0) return null;
  const serial = b.readUInt32LE(14);
  const segments = b[26]!;
  const packet = 27 + segments;
  if (packet > b.length) return null;
  const codec = identify(b, packet);
  if (codec === null) return null;
  const granule = lastGranule(b, serial);
  if (granule === null) return codec.flacMs ?? null;
  const samples = granule - codec.preSkip;
  if (samples <= 0) return null;
  return Math.round((samples * 1000) / codec.rate);
}

/** The codec of the first packet (the identification header). */
function identify(b: Buffer, at: number): Codec | null {
  if (at + 19 <= b.length && b.toString('latin1', at, at + 8) === 'OpusHead') {
    return { rate: 48000, preSkip: b.readUInt16LE(at + 10) };
  }
  if (at + 16 <= b.length && b[at] === 1 && b.toString('latin1', at + 1, at + 7) === 'vorbis') {
    const rate = b.readUInt32LE(at + 12);
    return rate === 0 ? null : { rate, preSkip: 0 };
  }
  // Ogg FLAC: 0x7F "FLAC", version, header count, "fLaC", then a STREAMINFO block.
  if (at + 13 + 4 + 18 <= b.length && b[at] === 0x7f && b.toString('latin1', at + 1, at + 5) === 'FLAC') {
    const info = at + 13 + 4;
    const rate = (b[info + 10]! << 12) | (b[info + 11]! << 4) | (b[info + 12]! >> 4);
    return rate === 0 ? null : { rate, preSkip: 0, flacMs: streamInfoDurationMs(b, info) };
  }
  return null;
}

/** The highest granule position among the last pages of `serial` (−1, "no packet ends here", skipped). */
function lastGranule(b: Buffer, serial: number): number | null {
  const stop = Math.max(0, b.length - 2 * MAX_PAGE);
  for (let at = b.length - 27; at >= stop; at--) {
    if (b[at] !== 0x4f || b.toString('latin1', at, at + 4) !== 'OggS' || b[at + 4] !== 0) continue;
    if (b.readUInt32LE(at + 14) !== serial) continue;
    const granule = b.readBigInt64LE(at + 6);
    if (granule < 0n) continue;
    return Number(granule);
  }
  return null;
}
